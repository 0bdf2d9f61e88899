// Package org keeps an organisation's repositories searchable together in
// one Weaviate collection: git kb publish writes a commit's view of a
// repository into it, git kb search --org queries every repository
// published there. It talks to Weaviate through the official Go client
// (REST and GraphQL; no gRPC port needed) and knows nothing of git: the
// engine hands it chunks and gets hits back.
//
// One collection holds every repository, each object carrying a `repo`
// property, rather than a tenant per repository: BM25 statistics are then
// those of the whole organisation, so scores from two repositories compare,
// and one query covers them all (Weaviate searches one tenant per query).
//
// Ranking uses our analyzer on both sides. Each chunk carries its terms as
// the local index counts them (body, heading, path, symbols), repeated by
// frequency, in whitespace-tokenized properties; a query sends our
// analyzed terms to BM25F over those properties with the local field
// weights. The chunk's text is there too, tokenized by Weaviate's own gse
// (Chinese) where the server enables it, for people who query the
// collection directly.
//
// Every call runs under a total timeout: an endpoint that is down or slow
// is a clear error, never a hang.
package org

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/weaviate/weaviate-go-client/v5/weaviate"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/fault"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/filters"
	"github.com/weaviate/weaviate/entities/models"

	"github.com/git-kb/git-kb/secrets"
)

// SchemaVersion numbers the collection layout this package writes and
// reads. A collection made by another layout is refused, not mixed.
const SchemaVersion = 2

// DefaultCollection is the collection's name when kb.org.collection is
// not set.
const DefaultCollection = "GitKB"

// DefaultTimeout bounds each call to the endpoint (a search, one batch of
// a publish) when Config.Timeout is zero.
const DefaultTimeout = 15 * time.Second

// Config says where the collection is.
type Config struct {
	// URL is the Weaviate endpoint, e.g. http://weaviate.internal:8080.
	URL string
	// APIKey, if set, is sent as a bearer token.
	APIKey string
	// Collection is the class name; "" = DefaultCollection.
	Collection string
	// Pipeline is the local index's pipeline version: terms published
	// under one pipeline do not match queries analyzed under another.
	Pipeline byte
	// Timeout bounds each call; 0 = DefaultTimeout.
	Timeout time.Duration
}

// Client is a connection to one collection.
type Client struct {
	c        *weaviate.Client
	class    string
	pipeline byte
	timeout  time.Duration
	url      string
}

// Dial checks the configuration and builds a client. It does not touch the
// network: the first call does, under the timeout.
func Dial(cfg Config) (*Client, error) {
	if cfg.URL == "" {
		return nil, errors.New("no org endpoint: set kb.org.url (git config kb.org.url http://weaviate.internal:8080)")
	}
	u, err := url.Parse(cfg.URL)
	if err == nil && u.User != nil {
		// Weaviate authenticates with an API key; a password in the URL
		// would only be echoed in error messages (Redacted: not here either).
		return nil, fmt.Errorf("kb.org.url %s holds a user name or password: Weaviate takes an API key, set GIT_KB_ORG_API_KEY (or kb.org.apiKey) and drop it from the URL", u.Redacted())
	}
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("kb.org.url: want http://host:port or https://host (git config kb.org.url http://weaviate.internal:8080)")
	}
	class := cfg.Collection
	if class == "" {
		class = DefaultCollection
	}
	if !validClass(class) {
		return nil, fmt.Errorf("kb.org.collection %q: a Weaviate collection name starts with a capital letter and holds only letters, digits and _", class)
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	wc := weaviate.Config{Host: u.Host + strings.TrimSuffix(u.Path, "/"), Scheme: u.Scheme, Timeout: timeout,
		// Our own client: the default one has no timeout on connecting.
		ConnectionClient: &http.Client{Timeout: timeout}}
	if cfg.APIKey != "" {
		// auth.ApiKey would fetch the server's OIDC configuration with no
		// timeout first; a bearer header is what it ends up sending.
		wc.Headers = map[string]string{"Authorization": "Bearer " + cfg.APIKey}
	}
	c, err := weaviate.NewClient(wc)
	if err != nil {
		return nil, fmt.Errorf("org endpoint %s: %w", secrets.RedactURL(cfg.URL), err)
	}
	return &Client{c: c, class: class, pipeline: cfg.Pipeline, timeout: timeout, url: cfg.URL}, nil
}

func validClass(s string) bool {
	if s == "" || s[0] < 'A' || s[0] > 'Z' {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
}

// Collection is the collection's name.
func (c *Client) Collection() string { return c.class }

// call runs fn under the client's timeout and words its failure for the
// user: which endpoint, and why.
func (c *Client) call(ctx context.Context, what string, fn func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	err := fn(ctx)
	if err == nil {
		return nil
	}
	if ctx.Err() == context.DeadlineExceeded || errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "Client.Timeout exceeded") {
		return &timeoutError{fmt.Sprintf("org endpoint %s: %s timed out after %s (kb.org.url; is Weaviate up and reachable? kb.org.timeoutMs sets the limit)", c.url, what, c.timeout)}
	}
	var we *fault.WeaviateClientError
	if errors.As(err, &we) {
		if we.StatusCode == http.StatusUnauthorized || we.StatusCode == http.StatusForbidden {
			return fmt.Errorf("org endpoint %s: %s refused (HTTP %d): check kb.org.apiKey or GIT_KB_ORG_API_KEY", c.url, what, we.StatusCode)
		}
		msg := we.Msg
		if we.DerivedFromError != nil {
			msg = we.DerivedFromError.Error()
		}
		if we.StatusCode > 0 {
			return fmt.Errorf("org endpoint %s: %s failed (HTTP %d): %s", c.url, what, we.StatusCode, firstLine(msg))
		}
		return fmt.Errorf("org endpoint %s: %s failed: %s", c.url, what, firstLine(msg))
	}
	return fmt.Errorf("org endpoint %s: %s: %w", c.url, what, err)
}

// ErrNoCollection is what Ensure wraps (errors.Is) when the collection
// does not exist and it was not to create it.
var ErrNoCollection = errors.New("no such org collection")

type noCollectionError struct{ msg string }

func (e *noCollectionError) Error() string { return e.msg }
func (e *noCollectionError) Unwrap() error { return ErrNoCollection }

// ErrTimeout is what a call that ran out of time wraps (errors.Is).
var ErrTimeout = errors.New("org endpoint timed out")

type timeoutError struct{ msg string }

func (e *timeoutError) Error() string { return e.msg }
func (e *timeoutError) Unwrap() error { return ErrTimeout }

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}

// idSpace is the UUIDv5 namespace of object ids.
var idSpace = uuid.NewSHA1(uuid.NameSpaceURL, []byte("https://github.com/git-kb/git-kb/org"))

// ObjectID is a chunk's object id: UUIDv5 of the repository's name, the
// blob, the pipeline version and the chunk's ordinal within the blob. The
// same chunk published again has the same id, so a republish writes
// nothing new and an interrupted one resumes by overwriting.
func ObjectID(repo, blob string, pipeline byte, ordinal int) string {
	return uuid.NewSHA1(idSpace, []byte(repo+"\x00"+blob+"\x00"+strconv.Itoa(int(pipeline))+"\x00"+strconv.Itoa(ordinal))).String()
}

// Entry is the key of one file's chunks in a repository: blob and path.
// Publishing compares entries, so a file renamed without a change in
// content is rewritten under its new path.
func Entry(blob, path string) string { return blob + " " + path }

// Property names.
const (
	pRepo, pRemote, pCommit, pBlob, pPath, pEntry = "repo", "remote", "commit", "blob", "path", "entry"
	pOrdinal, pStart, pEnd, pPipeline             = "ordinal", "startLine", "endLine", "pipeline"
	pTitle, pHeading, pLang, pTags, pOwner, pText = "title", "heading", "lang", "tags", "owner", "text"
	pSymbols                                      = "symbols"
	pBody, pHeadTerms, pPathTerms, pSymTerms      = "bodyTerms", "headingTerms", "pathTerms", "symbolTerms"
	pChunkTerms, pFileTerms                       = "chunkTerms", "fileTerms"
	pBodyLen, pFileLen, pFileMeta, pRepoStats     = "bodyLen", "fileLen", "fileMeta", "repoStats"
)

// statsEntry is the entry of a repository's statistics object (RepoStats):
// a chunk's entry is "blob path", never a word without a space.
const statsEntry = "stats"

// description marks a collection as ours, with the layout and pipeline.
func (c *Client) description() string {
	return fmt.Sprintf("git-kb org index; schema %d; pipeline %d", SchemaVersion, c.pipeline)
}

// class is the collection as this version makes it. BM25 parameters are
// the local index's; no stop words (our analyzer decides what a term is).
func (c *Client) classDef(textTokenization string) *models.Class {
	f := false
	tr := true
	prop := func(name, dt, tok string, searchable bool) *models.Property {
		p := &models.Property{Name: name, DataType: []string{dt}, Tokenization: tok, IndexFilterable: &tr, IndexSearchable: &searchable}
		if dt == "int" {
			p.Tokenization = ""
			p.IndexSearchable = nil
		}
		return p
	}
	return &models.Class{
		Class:       c.class,
		Description: c.description(),
		Vectorizer:  "none",
		InvertedIndexConfig: &models.InvertedIndexConfig{
			Bm25:      &models.BM25Config{K1: 1.2, B: 0.75},
			Stopwords: &models.StopwordConfig{Preset: "none"},
		},
		Properties: []*models.Property{
			prop(pRepo, "text", "field", false),
			prop(pRemote, "text", "field", false),
			prop(pCommit, "text", "field", false),
			prop(pBlob, "text", "field", false),
			prop(pPath, "text", "field", false),
			prop(pEntry, "text", "field", false),
			prop(pOrdinal, "int", "", false),
			prop(pStart, "int", "", false),
			prop(pEnd, "int", "", false),
			prop(pPipeline, "int", "", false),
			prop(pTitle, "text", textTokenization, true),
			prop(pHeading, "text", textTokenization, true),
			prop(pLang, "text", "field", false),
			prop(pTags, "text[]", "field", false),
			prop(pOwner, "text", "field", false),
			prop(pSymbols, "text[]", "field", false),
			prop(pText, "text", textTokenization, true),
			{Name: pBody, DataType: []string{"text"}, Tokenization: "whitespace", IndexFilterable: &f, IndexSearchable: &tr},
			{Name: pHeadTerms, DataType: []string{"text"}, Tokenization: "whitespace", IndexFilterable: &f, IndexSearchable: &tr},
			{Name: pPathTerms, DataType: []string{"text"}, Tokenization: "whitespace", IndexFilterable: &f, IndexSearchable: &tr},
			{Name: pSymTerms, DataType: []string{"text"}, Tokenization: "whitespace", IndexFilterable: &f, IndexSearchable: &tr},
			// Document frequencies are counted on these (filter only, no
			// BM25): the chunk's distinct terms, and on a file's first
			// chunk the file's.
			{Name: pChunkTerms, DataType: []string{"text"}, Tokenization: "whitespace", IndexFilterable: &tr, IndexSearchable: &f},
			{Name: pFileTerms, DataType: []string{"text"}, Tokenization: "whitespace", IndexFilterable: &tr, IndexSearchable: &f},
			// Read, never searched.
			{Name: pBodyLen, DataType: []string{"int"}, IndexFilterable: &f},
			{Name: pFileLen, DataType: []string{"int"}, IndexFilterable: &f},
			{Name: pFileMeta, DataType: []string{"text"}, Tokenization: "whitespace", IndexFilterable: &f, IndexSearchable: &f},
			{Name: pRepoStats, DataType: []string{"text"}, Tokenization: "whitespace", IndexFilterable: &f, IndexSearchable: &f},
		},
	}
}

// Options for creating the collection.
type Options struct {
	// Replicas is the replication factor of a new collection (0: the
	// server's default, 1 on one node).
	Replicas int
	// Shards is the number of shards of a new collection (0: one per
	// node).
	Shards int
}

// Ensure checks that the collection exists and is ours, of this layout
// and pipeline; create makes it when it is missing (publish), otherwise a
// missing collection is an error saying to publish first (ErrNoCollection). Note, if set,
// hears what was done.
func (c *Client) Ensure(ctx context.Context, create bool, o Options, note func(string, ...any)) error {
	var cl *models.Class
	err := c.call(ctx, "reading collection "+c.class, func(ctx context.Context) error {
		var err error
		cl, err = c.c.Schema().ClassGetter().WithClassName(c.class).Do(ctx)
		return err
	})
	if err != nil && !strings.Contains(err.Error(), "HTTP 404") {
		return err
	}
	if cl == nil || cl.Class == "" {
		if !create {
			return &noCollectionError{fmt.Sprintf("org endpoint %s has no collection %s: publish a repository first (git kb publish)", c.url, c.class)}
		}
		return c.create(ctx, o, note)
	}
	return c.check(cl)
}

func (c *Client) create(ctx context.Context, o Options, note func(string, ...any)) error {
	def := c.classDef("gse_ch")
	if o.Replicas > 0 {
		def.ReplicationConfig = &models.ReplicationConfig{Factor: int64(o.Replicas)}
	}
	if o.Shards > 0 {
		def.ShardingConfig = map[string]any{"desiredCount": o.Shards}
	}
	err := c.call(ctx, "creating collection "+c.class, func(ctx context.Context) error {
		return c.c.Schema().ClassCreator().WithClass(def).Do(ctx)
	})
	if err != nil && strings.Contains(err.Error(), "ENABLE_TOKENIZER_GSE_CH") {
		// The server has no Chinese tokenizer: the text property gets
		// Weaviate's trigrams instead. Our ranking does not depend on it.
		if note != nil {
			note("the org endpoint has no Chinese tokenizer (ENABLE_TOKENIZER_GSE_CH=true on the server enables it): the text property uses trigrams; git kb search --org is not affected")
		}
		def = c.classDef("trigram")
		if o.Replicas > 0 {
			def.ReplicationConfig = &models.ReplicationConfig{Factor: int64(o.Replicas)}
		}
		if o.Shards > 0 {
			def.ShardingConfig = map[string]any{"desiredCount": o.Shards}
		}
		err = c.call(ctx, "creating collection "+c.class, func(ctx context.Context) error {
			return c.c.Schema().ClassCreator().WithClass(def).Do(ctx)
		})
	}
	if err != nil && strings.Contains(err.Error(), "already exists") {
		// Another publisher made it meanwhile: check theirs.
		return c.Ensure(ctx, false, o, note)
	}
	return err
}

// MismatchError is a collection this version cannot use: not made by
// git-kb, another layout, another pipeline.
type MismatchError struct {
	Collection, URL, Why string
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("org collection %s at %s: %s", e.Collection, secrets.RedactURL(e.URL), e.Why)
}

// check refuses a collection of another layout or pipeline.
func (c *Client) check(cl *models.Class) error {
	var schema, pipeline int
	if n, _ := fmt.Sscanf(cl.Description, "git-kb org index; schema %d; pipeline %d", &schema, &pipeline); n != 2 {
		return &MismatchError{c.class, c.url, "not made by git kb publish (its description is " + strconv.Quote(cl.Description) + "): set kb.org.collection to another name"}
	}
	if schema != SchemaVersion {
		return &MismatchError{c.class, c.url, fmt.Sprintf("its layout is schema %d, this git-kb uses schema %d: upgrade git-kb everywhere, or publish to another kb.org.collection", schema, SchemaVersion)}
	}
	if pipeline != int(c.pipeline) {
		return &MismatchError{c.class, c.url, fmt.Sprintf("it holds terms of pipeline %d, this git-kb analyzes with pipeline %d, and the two would not match: use the same git-kb version as the publishers, or publish to another kb.org.collection", pipeline, c.pipeline)}
	}
	want := map[string]string{}
	for _, p := range c.classDef("").Properties {
		want[p.Name] = strings.Join(p.DataType, ",") + "/" + p.Tokenization
	}
	for _, p := range cl.Properties {
		w, ok := want[p.Name]
		if !ok {
			continue // a property someone added: not ours to judge
		}
		delete(want, p.Name)
		got := strings.Join(p.DataType, ",") + "/" + p.Tokenization
		if p.Name == pText || p.Name == pTitle || p.Name == pHeading {
			continue // gse_ch or trigram, as the server allowed
		}
		if got != w {
			return &MismatchError{c.class, c.url, fmt.Sprintf("property %s is %s, git kb publish makes it %s: publish to another kb.org.collection", p.Name, got, w)}
		}
	}
	for name := range want {
		return &MismatchError{c.class, c.url, fmt.Sprintf("property %s is missing: publish to another kb.org.collection", name)}
	}
	return nil
}

// Count is the number of objects of repo ("" = all repositories).
func (c *Client) Count(ctx context.Context, repo string) (int, error) {
	// Chunks only: not the repositories' statistics objects.
	where := filters.Where().WithOperator(filters.Not).WithOperands([]*filters.WhereBuilder{eq(pEntry, statsEntry)})
	if repo != "" {
		where = filters.Where().WithOperator(filters.And).WithOperands([]*filters.WhereBuilder{eq(pRepo, repo), where})
	}
	b := c.c.GraphQL().Aggregate().WithClassName(c.class).WithFields(metaCount()).WithWhere(where)
	var n int
	err := c.call(ctx, "counting objects", func(ctx context.Context) error {
		resp, err := b.Do(ctx)
		if err != nil {
			return err
		}
		if err := gqlErr(resp); err != nil {
			return err
		}
		var out struct {
			Aggregate map[string][]struct {
				Meta struct{ Count int } `json:"meta"`
			}
		}
		if err := remarshal(resp.Data, &out); err != nil {
			return err
		}
		for _, g := range out.Aggregate[c.class] {
			n += g.Meta.Count
		}
		return nil
	})
	return n, err
}

func gqlErr(resp *models.GraphQLResponse) error {
	if resp == nil {
		return errors.New("empty response")
	}
	if len(resp.Errors) > 0 {
		var msgs []string
		for _, e := range resp.Errors {
			msgs = append(msgs, e.Message)
		}
		return errors.New(strings.Join(msgs, "; "))
	}
	return nil
}

func remarshal(in any, out any) error {
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}
