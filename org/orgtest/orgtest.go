// Package orgtest starts real Weaviate servers on loopback for tests, with
// bench/weaviate.sh (built once from the Go module proxy and cached). A
// test that needs one skips, saying how to get it, when the server is not
// built; with GIT_KB_REQUIRE_WEAVIATE=1 (CI) it builds it or fails.
//
// A test process starts one single-node server for all its tests (Start):
// a node takes 10-20 s to start on a loaded 2-core machine, most of an org
// test's time. Each test gets it emptied of collections; the package's
// TestMain stops it (StopShared), and the server stops by itself if the
// test process dies first.
package orgtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Server is one Weaviate node.
type Server struct {
	URL    string
	Port   int
	Dir    string
	Node   string
	script string
	stop   sync.Once
}

// script finds bench/weaviate.sh above the test's directory.
func script(t testing.TB) string {
	dir, _ := os.Getwd()
	for {
		p := filepath.Join(dir, "bench", "weaviate.sh")
		if _, err := os.Stat(p); err == nil {
			return p
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Skip("bench/weaviate.sh not found above the test's directory: no Weaviate for this test")
		}
		dir = up
	}
}

var buildOnce sync.Once
var buildErr error

// Binary makes sure the server is built, or skips t.
func Binary(t testing.TB) {
	t.Helper()
	sh := script(t)
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash to run bench/weaviate.sh: no Weaviate for this test")
	}
	require := os.Getenv("GIT_KB_REQUIRE_WEAVIATE") == "1"
	buildOnce.Do(func() {
		out, err := exec.Command("bash", sh, "path").Output()
		if err == nil && strings.TrimSpace(string(out)) != "" {
			return
		}
		if !require {
			buildErr = fmt.Errorf("not built")
			return
		}
		cmd := exec.Command("bash", sh, "build")
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			buildErr = fmt.Errorf("bench/weaviate.sh build: %v", err)
		}
	})
	if buildErr != nil {
		if require {
			t.Fatalf("GIT_KB_REQUIRE_WEAVIATE=1 and the Weaviate server cannot be built: %v", buildErr)
		}
		t.Skipf("Weaviate server not built (%v): run bench/weaviate.sh build once (about 5 minutes on 2 cores, needs the Go module proxy), or set GIT_KB_REQUIRE_WEAVIATE=1", buildErr)
	}
}

// freePorts finds a base port with base..base+5 free on loopback.
func freePorts() (int, error) {
	for range 50 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, err
		}
		base := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if base+5 > 65535 {
			continue
		}
		ok := true
		for p := base; p <= base+5 && ok; p++ {
			if l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p)); err != nil {
				ok = false
			} else {
				l.Close()
			}
		}
		if ok {
			return base, nil
		}
	}
	return 0, fmt.Errorf("no six free ports in a row on loopback")
}

var shared struct {
	once sync.Once
	srv  *Server
	err  error
}

// Start gives t a single-node server with no collections: the test
// process's one server, started on first use (with the Chinese
// tokenizer), every collection an earlier test made dropped. Tests that
// use it must not run in parallel with each other; StopShared, from the
// package's TestMain, stops it.
func Start(t testing.TB) *Server {
	t.Helper()
	Binary(t)
	sh := script(t)
	shared.once.Do(func() {
		var srvs []*Server
		srvs, shared.err = startNodes(sh, 1)
		if shared.err == nil {
			shared.srv = srvs[0]
		}
	})
	if shared.err != nil {
		t.Fatalf("starting Weaviate: %v", shared.err)
	}
	if err := shared.srv.dropCollections(); err != nil {
		t.Fatalf("emptying the shared Weaviate: %v", err)
	}
	return shared.srv
}

// StopShared stops the server Start started, if any.
func StopShared() {
	if shared.srv != nil {
		shared.srv.Stop()
		os.RemoveAll(shared.srv.Dir)
	}
}

// dropCollections deletes every collection of the server.
func (s *Server) dropCollections() error {
	c := &http.Client{Timeout: time.Minute}
	resp, err := c.Get(s.URL + "/v1/schema")
	if err != nil {
		return err
	}
	var schema struct {
		Classes []struct{ Class string }
	}
	err = json.NewDecoder(resp.Body).Decode(&schema)
	resp.Body.Close()
	if err != nil {
		return err
	}
	for _, cl := range schema.Classes {
		req, _ := http.NewRequest("DELETE", s.URL+"/v1/schema/"+cl.Class, nil)
		resp, err := c.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("deleting collection %s: HTTP %d", cl.Class, resp.StatusCode)
		}
	}
	return nil
}

// Cluster starts n nodes that form one cluster (Raft voters, one gossip
// ring), for t alone; they stop when the test ends. env adds environment
// variables (WEAVIATE_GSE_CH=false starts faster).
func Cluster(t testing.TB, n int, env ...string) []*Server {
	t.Helper()
	Binary(t)
	servers, err := startNodes(script(t), n, env...)
	for _, s := range servers {
		t.Cleanup(func() { s.Stop(); os.RemoveAll(s.Dir) })
	}
	if err != nil {
		t.Fatalf("starting Weaviate: %v", err)
	}
	return servers
}

// startNodes starts n nodes of one cluster in temporary directories.
// Each stops by itself when this process exits (weaviate.sh watches it).
func startNodes(sh string, n int, env ...string) ([]*Server, error) {
	servers := make([]*Server, n)
	var join []string
	for i := range servers {
		port, err := freePorts()
		if err != nil {
			return nil, err
		}
		s := &Server{Port: port, URL: fmt.Sprintf("http://127.0.0.1:%d", port), Node: fmt.Sprintf("node%d", i+1), script: sh}
		dir, err := os.MkdirTemp("", "git-kb-weaviate-")
		if err != nil {
			return nil, err
		}
		s.Dir = dir
		servers[i] = s
		join = append(join, fmt.Sprintf("%s:%d", s.Node, port+4))
	}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, s := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command("bash", sh, "start", s.Dir, strconv.Itoa(s.Port), s.Node)
			cmd.Env = append(os.Environ(), "WEAVIATE_JOIN="+strings.Join(join, ","), "WEAVIATE_BOOTSTRAP="+strconv.Itoa(n),
				"WEAVIATE_READY_TIMEOUT=180", "WEAVIATE_PARENT_PID="+strconv.Itoa(os.Getpid()))
			cmd.Env = append(cmd.Env, env...)
			if i > 0 {
				cmd.Env = append(cmd.Env, fmt.Sprintf("WEAVIATE_GOSSIP_JOIN=127.0.0.1:%d", servers[0].Port+2))
			}
			if out, err := cmd.CombinedOutput(); err != nil {
				log, _ := os.ReadFile(filepath.Join(s.Dir, "weaviate.log"))
				if len(log) > 3000 {
					log = log[len(log)-3000:]
				}
				errs[i] = fmt.Errorf("%s: %v: %s\n%s", s.Node, err, out, log)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			for _, s := range servers {
				s.Stop()
				os.RemoveAll(s.Dir)
			}
			return servers, err
		}
	}
	return servers, nil
}

// Stop stops the node (and waits for it to exit).
func (s *Server) Stop() {
	s.stop.Do(func() {
		exec.Command("bash", s.script, "stop", s.Dir).Run()
	})
}

// Ready says whether the node answers its readiness probe.
func (s *Server) Ready(ctx context.Context) bool {
	req, _ := http.NewRequestWithContext(ctx, "GET", s.URL+"/v1/.well-known/ready", nil)
	c := &http.Client{Timeout: 2 * time.Second}
	resp, err := c.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == 200
}
