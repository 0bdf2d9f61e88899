package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/git-kb/git-kb/secrets"
)

// ChatConfig configures an OpenAI-compatible chat-completions endpoint.
type ChatConfig struct {
	BaseURL, Model string
	APIKey         string // never logged
	Timeout        time.Duration
	MaxRetries     int           // on 429, 5xx and timeouts before any text arrived (default 3)
	RetryBase      time.Duration // first backoff (default 500ms)
	Temperature    float32
	HTTPClient     *http.Client
}

// Message is one chat message.
type Message struct{ Role, Content string }

// Chat talks to a chat-completions endpoint.
type Chat struct {
	cfg    ChatConfig
	client *openai.Client
}

// NewChat checks cfg and builds a client.
func NewChat(cfg ChatConfig) (*Chat, error) {
	if cfg.BaseURL == "" || cfg.Model == "" {
		return nil, errors.New("chat endpoint: set kb.chat.baseURL and kb.chat.model")
	}
	if u, err := url.Parse(cfg.BaseURL); err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("chat endpoint: kb.chat.baseURL %q is not an http(s) URL", secrets.RedactURL(cfg.BaseURL))
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 120 * time.Second
	}
	if cfg.MaxRetries < 0 {
		cfg.MaxRetries = 0
	} else if cfg.MaxRetries == 0 {
		cfg.MaxRetries = 3
	}
	if cfg.RetryBase <= 0 {
		cfg.RetryBase = 500 * time.Millisecond
	}
	return &Chat{cfg: cfg, client: newClient(cfg.BaseURL, cfg.APIKey, cfg.HTTPClient)}, nil
}

// Model is the configured model name.
func (c *Chat) Model() string { return c.cfg.Model }

func (c *Chat) request(msgs []Message, stream bool) openai.ChatCompletionRequest {
	req := openai.ChatCompletionRequest{Model: c.cfg.Model, Stream: stream, Temperature: c.cfg.Temperature}
	for _, m := range msgs {
		req.Messages = append(req.Messages, openai.ChatCompletionMessage{Role: m.Role, Content: m.Content})
	}
	return req
}

// retry runs fn until it succeeds, fails for good, or retries run out;
// fn reports whether it already delivered output (then it is not retried).
func (c *Chat) retry(ctx context.Context, fn func(ctx context.Context) (delivered bool, err error)) error {
	for attempt := 0; ; attempt++ {
		var wait time.Duration
		actx := context.WithValue(ctx, retryAfterKey{}, &wait)
		delivered, err := fn(actx)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		retry, msg := classify(err, "kb.chat")
		if delivered || !retry || attempt >= c.cfg.MaxRetries {
			return fmt.Errorf("chat endpoint %s: %s", secrets.RedactURL(c.cfg.BaseURL), msg)
		}
		if wait <= 0 {
			wait = backoff(c.cfg.RetryBase, attempt)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
}

// timedOut turns the deadline of a call into a message that says which.
func (c *Chat) timedOut(parent context.Context, err error) error {
	if errors.Is(err, context.DeadlineExceeded) && parent.Err() == nil {
		return fmt.Errorf("chat endpoint %s: no complete answer within %s (kb.chat.timeoutMs)", secrets.RedactURL(c.cfg.BaseURL), c.cfg.Timeout)
	}
	return err
}

// Complete asks for a whole answer at once.
func (c *Chat) Complete(parent context.Context, msgs []Message) (string, error) {
	ctx, cancel := context.WithTimeout(parent, c.cfg.Timeout)
	defer cancel()
	var out string
	err := c.retry(ctx, func(ctx context.Context) (bool, error) {
		res, err := c.client.CreateChatCompletion(ctx, c.request(msgs, false))
		if err != nil {
			return false, err
		}
		if len(res.Choices) == 0 {
			return false, errors.New("the response has no choices")
		}
		out = res.Choices[0].Message.Content
		return false, nil
	})
	return out, c.timedOut(parent, err)
}

// Stream asks for an answer and calls onDelta with each piece as it
// arrives. A failure before the first piece is retried; after it, the
// text so far is returned with the error.
func (c *Chat) Stream(parent context.Context, msgs []Message, onDelta func(string)) (string, error) {
	ctx, cancel := context.WithTimeout(parent, c.cfg.Timeout)
	defer cancel()
	var b strings.Builder
	err := c.retry(ctx, func(ctx context.Context) (bool, error) {
		st, err := c.client.CreateChatCompletionStream(ctx, c.request(msgs, true))
		if err != nil {
			return false, err
		}
		defer st.Close()
		for {
			chunk, err := st.Recv()
			if errors.Is(err, io.EOF) {
				return b.Len() > 0, nil
			}
			if err != nil {
				return b.Len() > 0, err
			}
			if len(chunk.Choices) > 0 {
				if d := chunk.Choices[0].Delta.Content; d != "" {
					b.WriteString(d)
					if onDelta != nil {
						onDelta(d)
					}
				}
			}
		}
	})
	return b.String(), c.timedOut(parent, err)
}
