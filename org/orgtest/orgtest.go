// Package orgtest starts real Weaviate servers on loopback for tests, with
// bench/weaviate.sh (built once from the Go module proxy and cached). A
// test that needs one skips, saying how to get it, when the server is not
// built; with GIT_KB_REQUIRE_WEAVIATE=1 (CI) it builds it or fails.
package orgtest

import (
	"context"
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
	URL  string
	Port int
	Dir  string
	Node string
	t    testing.TB
	stop sync.Once
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
func freePorts(t testing.TB) int {
	for range 50 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
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
			return base
		}
	}
	t.Fatal("no six free ports in a row on loopback")
	return 0
}

// Start starts one single-node server in a temporary directory; it stops
// when the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	return Cluster(t, 1)[0]
}

// Cluster starts n nodes that form one cluster (Raft voters, one gossip
// ring); they stop when the test ends. env adds environment variables
// (WEAVIATE_GSE_CH=false starts faster).
func Cluster(t testing.TB, n int, env ...string) []*Server {
	t.Helper()
	Binary(t)
	sh := script(t)
	servers := make([]*Server, n)
	var join []string
	for i := range servers {
		port := freePorts(t)
		s := &Server{Port: port, URL: fmt.Sprintf("http://127.0.0.1:%d", port), Node: fmt.Sprintf("node%d", i+1), t: t}
		dir, err := os.MkdirTemp("", "git-kb-weaviate-")
		if err != nil {
			t.Fatal(err)
		}
		s.Dir = dir
		servers[i] = s
		join = append(join, fmt.Sprintf("%s:%d", s.Node, port+4))
		t.Cleanup(func() { s.Stop(); os.RemoveAll(dir) })
	}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, s := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command("bash", sh, "start", s.Dir, strconv.Itoa(s.Port), s.Node)
			cmd.Env = append(os.Environ(), "WEAVIATE_JOIN="+strings.Join(join, ","), "WEAVIATE_BOOTSTRAP="+strconv.Itoa(n),
				"WEAVIATE_READY_TIMEOUT=180")
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
			t.Fatalf("starting Weaviate: %v", err)
		}
	}
	return servers
}

// Stop stops the node (and waits for it to exit).
func (s *Server) Stop() {
	s.stop.Do(func() {
		exec.Command("bash", script(s.t), "stop", s.Dir).Run()
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
