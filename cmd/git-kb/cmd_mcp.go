package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-kb/git-kb/engine"
	"github.com/git-kb/git-kb/gitx"
	"github.com/git-kb/git-kb/mcp"
	"github.com/git-kb/git-kb/settings"
	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v2"
)

func mcpCommand(e env) *cli.Command {
	return &cli.Command{
		Name:  "mcp",
		Usage: "serve the knowledge base to AI agents (Model Context Protocol)",
		Description: `Runs an MCP server for the repository you are in, over stdio by default.
Tools: hybrid_search, keyword_search, get_document, context_pack,
blame_context, list_collections, index_status. All are read-only; a search
of a commit that is not indexed indexes it first. Results cite
<commit>:<path>#L<a>-L<b>.

The server keeps the repository, the analyzer and decoded vectors (and the
HNSW graphs, when kb.ann.graphMin built them) in memory between calls, and
opens the index only for the length of a call, so the background indexer
keeps writing and new views show up without a restart.

On stdio, when the input ends the server answers every request it has
read (not those the client cancelled; at most 5 minutes), then exits: a
script piping requests into git kb mcp gets every reply.

An MCP client runs it like this (Claude Desktop, Cursor, ... "mcpServers"):
  {"mcpServers": {"kb": {"command": "git", "args": ["-C", "/path/to/repo", "kb", "mcp"]}}}

Serve more repositories from one server (each tool takes a repo argument):
  git config --add kb.mcp.repos /path/to/other-repo

Streamable HTTP instead of stdio:
  git kb mcp --http 127.0.0.1:8765      # loopback only
  git kb mcp --listen 0.0.0.0:8765      # any interface: needs a bearer token

Other machines must authenticate: a non-loopback --listen refuses to start
without a token, and then every request needs "Authorization: Bearer <token>"
(401 without it). Set the token once per repository, or per process:
  git config kb.mcp.token "$(openssl rand -hex 32)"
  GIT_KB_MCP_TOKEN=... git kb mcp --listen 0.0.0.0:8765
A session that sends no request for kb.mcp.idleTimeout (default 30m; 0:
never) is ended and its memory freed; a client that comes back gets HTTP
404 (session not found) and must initialize a new session.
A token that is set is required on loopback too. On loopback the server also
refuses requests whose Host header is not a loopback name (DNS rebinding),
and on any address requests a browser sends from another site's page.
Agents never get secrets: files such as .env or *.pem are refused, and
secrets inside other files come back as [redacted: <rule>].`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "http", Usage: "serve streamable HTTP on this loopback address (`HOST:PORT`, or :PORT for 127.0.0.1)"},
			&cli.StringFlag{Name: "listen", Usage: "serve streamable HTTP on any address, e.g. 0.0.0.0:8765 (needs kb.mcp.token or GIT_KB_MCP_TOKEN)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("mcp takes no arguments (got %q); run it inside the repository, or git -C DIR kb mcp", c.Args().First())
			}
			addr, err := httpAddr(c.String("http"), c.String("listen"))
			if err != nil {
				return err
			}
			repo, err := openRepo(e)
			if err != nil {
				return err
			}
			repos, err := mcpRepos(c.Context, e, repo)
			if err != nil {
				return err
			}
			server := mcp.NewServer(version, repos)
			if addr == "" {
				return server.Run(c.Context, &mcp.Stdio{In: os.Stdin, Out: os.Stdout})
			}
			token, idle, err := mcpHTTP(c.Context, e, repo, addr)
			if err != nil {
				return err
			}
			return serveHTTP(c.Context, e, server, addr, token, idle)
		},
	}
}

// httpAddr checks --http (loopback only) and --listen (anything).
func httpAddr(loopback, any string) (string, error) {
	if loopback != "" && any != "" {
		return "", usagef("--http and --listen both give an address: use one")
	}
	if any != "" {
		if _, _, err := net.SplitHostPort(any); err != nil {
			return "", usagef("--listen %s: want HOST:PORT", any)
		}
		return any, nil
	}
	if loopback == "" {
		return "", nil
	}
	host, port, err := net.SplitHostPort(loopback)
	if err != nil {
		return "", usagef("--http %s: want HOST:PORT or :PORT", loopback)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return "", usagef("--http %s is not a loopback address; to serve other machines use --listen %s with a token (kb.mcp.token)", loopback, loopback)
	}
	return net.JoinHostPort(host, port), nil
}

// minTokenLen keeps guessable tokens out: 16 characters is 64 bits of hex.
const minTokenLen = 16

// mcpHTTP reads the settings of serving HTTP: the bearer token clients
// must send (GIT_KB_MCP_TOKEN, else kb.mcp.token; "" (none) is allowed on
// loopback addresses only) and kb.mcp.idleTimeout.
func mcpHTTP(ctx context.Context, e env, repo *gitx.Repo, addr string) (token string, idle time.Duration, err error) {
	set, err := settings.Load(ctx, repo, e.getenv)
	if err != nil {
		return "", 0, err
	}
	token, from := set.MCPToken, set.MCPTokenFrom
	switch {
	case token != "" && len(token) < minTokenLen:
		return "", 0, fmt.Errorf("%s is %d characters; use at least %d, e.g. git config kb.mcp.token \"$(openssl rand -hex 32)\"", from, len(token), minTokenLen)
	case token == "" && !loopbackAddr(addr):
		return "", 0, fmt.Errorf("--listen %s serves other machines and needs a bearer token: run git config kb.mcp.token \"$(openssl rand -hex 32)\" (or set GIT_KB_MCP_TOKEN), then have clients send Authorization: Bearer <token>", addr)
	}
	return token, set.MCPIdleTimeout, nil
}

// loopbackAddr says HOST:PORT listens on loopback only ("" and 0.0.0.0
// listen on every interface).
func loopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return host == "localhost" || ip != nil && ip.IsLoopback()
}

// requireToken answers 401 unless the request carries the bearer token.
// The SDK's middleware does the HTTP side; the comparison is of SHA-256
// digests in constant time, so neither the content nor the length of the
// token leaks through timing.
func requireToken(token string, h http.Handler) http.Handler {
	want := sha256.Sum256([]byte(token))
	verify := func(_ context.Context, got string, _ *http.Request) (*auth.TokenInfo, error) {
		sum := sha256.Sum256([]byte(got))
		if subtle.ConstantTimeCompare(sum[:], want[:]) != 1 {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{}, nil
	}
	return auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(h)
}

func serveHTTP(ctx context.Context, e env, server *sdk.Server, addr, token string, idle time.Duration) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	// The SDK's handler refuses, on a loopback listener, a Host header that
	// is not loopback (DNS rebinding); before it, requests a browser marks
	// cross-origin are refused (the transport spec: validate Origin), so
	// no web page the user opens drives the server; the token check comes
	// first.
	// An idle session is ended (kb.mcp.idleTimeout): one a client left
	// without a DELETE would otherwise hold its memory for the server's
	// lifetime (3,000 abandoned sessions: ~25 MB). A client that comes
	// back gets 404, which the spec has it answer with a new session.
	var h http.Handler = sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, &sdk.StreamableHTTPOptions{SessionTimeout: idle})
	h = http.NewCrossOriginProtection().Handler(cancelOnHangUp(h))
	note := "no token: loopback only"
	if token != "" {
		h, note = requireToken(token, h), "bearer token required"
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	if idle > 0 {
		note += fmt.Sprintf("; a session idle for %s ends", idle)
	}
	fmt.Fprintf(e.Stderr, "git kb: MCP over streamable HTTP at http://%s/ (%s)\n", ln.Addr(), note)
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(shut)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// cancelOnHangUp cancels a call whose client hung up before the answer,
// as if it had sent notifications/cancelled. The SDK goes on with it for
// a client that could resume the stream, which needs an event store this
// server does not keep: the answer would be lost, and since calls to a
// repository run one at a time, the work would hold up every other
// client's calls.
func cancelOnHangUp(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get("Mcp-Session-Id") == "" || r.Body == nil {
			h.ServeHTTP(w, r)
			return
		}
		// What the SDK reads of the body (it bounds the size), kept to
		// learn the call's id.
		var body bytes.Buffer
		r.Body = struct {
			io.Reader
			io.Closer
		}{io.TeeReader(r.Body, &body), r.Body}
		h.ServeHTTP(w, r)
		if r.Context().Err() == nil {
			return // answered
		}
		var call struct {
			Method string          `json:"method"`
			ID     json.RawMessage `json:"id"`
		}
		if json.Unmarshal(body.Bytes(), &call) != nil || call.Method != "tools/call" || len(call.ID) == 0 {
			return
		}
		note := fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%s,"reason":"the client hung up"}}`, call.ID)
		cancel, err := http.NewRequestWithContext(context.WithoutCancel(r.Context()), http.MethodPost, r.URL.String(), strings.NewReader(note))
		if err != nil {
			return
		}
		cancel.Header, cancel.Host = r.Header.Clone(), r.Host
		h.ServeHTTP(discard{}, cancel)
	})
}

// discard is a ResponseWriter for an answer no one reads.
type discard struct{}

func (discard) Header() http.Header         { return http.Header{} }
func (discard) Write(b []byte) (int, error) { return len(b), nil }
func (discard) WriteHeader(int)             {}

// mcpRepos is the repository we run in, then those of kb.mcp.repos.
func mcpRepos(ctx context.Context, e env, repo *gitx.Repo) ([]mcp.Repo, error) {
	first, err := newMCPBackend(ctx, e, repo)
	if err != nil {
		return nil, err
	}
	repos := []mcp.Repo{{Name: repoName(repo), Dir: repoDir(repo), Backend: first, Secrets: first.Engine().Secrets}}
	extra := first.Engine().Settings.MCPRepos
	names := map[string]bool{repos[0].Name: true}
	for _, dir := range extra {
		if !filepath.IsAbs(dir) && repo.WorkTree != "" {
			dir = filepath.Join(repo.WorkTree, dir)
		}
		r, err := gitx.Open(dir)
		if err != nil {
			return nil, fmt.Errorf("git config kb.mcp.repos %s: %w", dir, err)
		}
		b, err := newMCPBackend(ctx, e, r)
		if err != nil {
			return nil, fmt.Errorf("kb.mcp.repos %s: %w", dir, err)
		}
		name := repoName(r)
		for i := 2; names[name]; i++ {
			name = fmt.Sprintf("%s-%d", repoName(r), i)
		}
		names[name] = true
		repos = append(repos, mcp.Repo{Name: name, Dir: repoDir(r), Backend: b, Secrets: b.Engine().Secrets})
	}
	return repos, nil
}

func repoDir(r *gitx.Repo) string {
	if r.WorkTree != "" {
		return r.WorkTree
	}
	return r.CommonDir
}

func repoName(r *gitx.Repo) string {
	name := filepath.Base(repoDir(r))
	if r.WorkTree == "" {
		name = filepath.Base(r.CommonDir)
		if name == ".git" {
			name = filepath.Base(filepath.Dir(r.CommonDir))
		}
	}
	return name
}

// mcpBackend is one repository served over MCP: its engine, kept for the
// server's lifetime so the embedder's query cache and decoded vectors stay
// warm. Notices (indexing, waiting for the indexer) are off: stdout
// carries the protocol.
func newMCPBackend(ctx context.Context, e env, repo *gitx.Repo) (*engine.Shared, error) {
	kb, err := engine.Open(ctx, repo, engine.Options{Getenv: e.getenv, Version: version, Server: true})
	if err != nil {
		return nil, err
	}
	return engine.NewShared(kb), nil
}
