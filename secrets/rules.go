package secrets

import (
	"encoding/base64"
	"path"
	"regexp"
	"strings"
	"sync"
)

// RulesVersion changes whenever a rule is added, removed or changed, so
// that the indexer re-derives what it built under the old rules (it is
// part of Policy.Fingerprint, which the index records).
//
//	1: first rule set
//	2: password-assignment leaves spelled-out formats (name:password:GID)
//	3: private-key finds blocks commented out or quoted (# , // , > ) and
//	   base64-encoded PEM keys (a kubeconfig's client-key-data)
//	4: a path holding a secret keeps its file out (Policy.InPath)
//	5: password-assignment reads Chinese names (密码, 口令, 密钥, 令牌),
//	   a full-width colon, 是/为, escaped quotes, and ends a value at
//	   the first non-ASCII character
//	6: cli-password (mysql -pX, --password X), basic-auth (curl -u
//	   user:pass, Authorization: Basic), password-assignment reads
//	   environment assignments (DB_PASS=x, MYSQL_PWD: x) with any
//	   literal value, private-key finds base64 DER key bodies without
//	   a BEGIN line it knows (derKeys)
//	7: a line over 64 KiB is searched around each rule's keywords as far
//	   as the rule's longest match (it was 1 KiB); aws-secret-key,
//	   alibaba-secret-key and password-assignment name a keyword for
//	   every spelling they match (secret_accesskey, access_keysecret,
//	   auth-key)
const RulesVersion = 7

// rule finds one kind of secret on a line.
type rule struct {
	id string
	// keywords are lowercase substrings; the rule runs only on lines
	// holding one of them (the cheap prefilter).
	keywords []string
	// lineKeyword says the keywords tell the line's kind (a curl or
	// mysql command) and a match need not hold one (-u user:pass). A
	// rule without it finds only matches that hold one of its keywords
	// (every spelling its regexp matches holds one), which lets a long
	// line be searched around them (matches).
	lineKeyword bool
	// re is compiled on first use (lazyRE).
	re func() *regexp.Regexp
	// reach is what re can cover, read from it on first use (a long
	// line is searched around the keywords that far).
	reach func() *reach
	// group is the submatch that is the secret (0: the whole match).
	group int
	// minEntropy is the Shannon entropy, in bits per byte, the secret
	// must reach (0: no check).
	minEntropy float64
	// valid, when set, must accept the secret.
	valid func(v string) bool
	// check, when set, must accept the secret seen in its line, with
	// the match's submatch offsets m (a password beside its user name).
	check func(line string, m []int, v string) bool
	// file, when set, limits the rule to files whose base name it accepts.
	file func(base string) bool
}

// lazyRE compiles src the first time a candidate line needs it. Compiling
// all the rules took 1-5 ms of every git-kb start (the largest package
// initialiser), although a command that never reads file text needs none
// of them and a search's snippets need a few (issue 16). Every rule is
// compiled by TestRulesCompile, so a bad pattern still fails the tests.
func lazyRE(src string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(src) })
}

// privateKeyRule names both private key forms: a block over several lines
// (found by privateKeyBlocks) and a key inlined on one line with \n
// escapes (a rule like the others).
const privateKeyRule = "private-key"

// Rules lists the rule ids, for kb.secrets.allow and documentation.
func Rules() []string {
	ids := []string{}
	seen := map[string]bool{}
	for _, r := range rules {
		if !seen[r.id] {
			seen[r.id] = true
			ids = append(ids, r.id)
		}
	}
	return ids
}

// rules, most specific first: where two rules match overlapping text the
// marker names the earlier one.
var rules = []*rule{
	{
		id:       privateKeyRule,
		keywords: []string{"private key"},
		// A PEM block written on one line, newlines escaped (JSON, YAML
		// strings, Go string literals).
		re: lazyRE(`-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----(?:\\r)?\\n[A-Za-z0-9+/=\\ :,.\-]{32,}?-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----(?:\\n)?`),
	},
	{
		id:       privateKeyRule,
		keywords: []string{"ls0tls1crudjti"},
		// A PEM block base64-encoded once more, as a kubeconfig's
		// client-key-data and a Kubernetes secret's data hold it.
		re:    lazyRE(`(LS0tLS1CRUdJTi[A-Za-z0-9+/]{24,}={0,2})`),
		group: 1,
		valid: encodedPrivateKey,
	},
	{
		id:       "gcp-service-account-key",
		keywords: []string{`"private_key"`},
		re:       lazyRE(`"private_key"\s*:\s*"([^"]{40,})"`),
		group:    1,
	},
	{
		id:       "gcp-private-key-id",
		keywords: []string{`"private_key_id"`},
		re:       lazyRE(`"private_key_id"\s*:\s*"([a-f0-9]{40})"`),
		group:    1,
	},
	{
		id:       "aws-access-key",
		keywords: []string{"akia", "asia", "abia", "acca", "a3t"},
		// Key ids are 20 characters of base32 after a fixed prefix.
		re:    lazyRE(`\b((?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z2-7]{16})\b`),
		group: 1,
	},
	{
		id:         "aws-secret-key",
		keywords:   []string{"aws", "secret_access", "secretaccess", "secret-access"},
		re:         lazyRE(`(?i)(?:aws.{0,24}?secret|secret[_-]?access[_-]?key).{0,24}?(?:[=:>]|\s)\s*["']?([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)`),
		group:      1,
		minEntropy: 3.5,
	},
	{
		id:       "azure-storage-key",
		keywords: []string{"accountkey"},
		re:       lazyRE(`(?i)AccountKey["']?\s*[=:]\s*["']?([A-Za-z0-9+/]{86}==)`),
		group:    1,
	},
	{
		id:       "azure-shared-access-key",
		keywords: []string{"sharedaccesskey"},
		re:       lazyRE(`(?i)SharedAccessKey\s*=\s*([A-Za-z0-9+/]{42,44}=?)`),
		group:    1,
	},
	{
		id:       "azure-sas-token",
		keywords: []string{"sig="},
		re:       lazyRE(`(?i)[?&;]sv=\d{4}-\d\d-\d\d[^\s"'<>]*?[?&;]sig=([A-Za-z0-9%+/]{30,}(?:%3D|=){0,2})`),
		group:    1,
	},
	{
		id:       "azure-client-secret",
		keywords: []string{"q~"},
		re:       lazyRE(`(?:^|[^A-Za-z0-9_~.\-])([A-Za-z0-9_~.\-]{3}\dQ~[A-Za-z0-9_~.\-]{31,34})(?:[^A-Za-z0-9_~.\-]|$)`),
		group:    1,
	},
	{
		id:       "alibaba-access-key",
		keywords: []string{"ltai"},
		re:       lazyRE(`\b(LTAI[A-Za-z0-9]{12,20})\b`),
		group:    1,
		// A key id mixes cases and digits; an identifier such as
		// LTAIMPORTANTNOTE does not.
		valid: mixed,
	},
	{
		id:         "alibaba-secret-key",
		keywords:   []string{"keysecret", "key_secret", "key-secret"},
		re:         lazyRE(`(?i)access[_-]?key[_-]?secret["']?\s*[:=]\s*["']?([A-Za-z0-9]{30})\b`),
		group:      1,
		minEntropy: 3.5,
	},
	{
		id:       "github-token",
		keywords: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"},
		re:       lazyRE(`\b((?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,251})\b`),
		group:    1,
	},
	{
		id:       "github-token",
		keywords: []string{"github_pat_"},
		re:       lazyRE(`\b(github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59})\b`),
		group:    1,
	},
	{
		id:       "gitlab-token",
		keywords: []string{"glpat-", "glptt-", "gldt-", "glrt-", "glsoat-", "glcbt-", "glimt-"},
		re:       lazyRE(`\b(gl(?:pat|ptt|dt|rt|soat|cbt|imt)-[A-Za-z0-9_\-]{20,})`),
		group:    1,
	},
	{
		id:       "slack-token",
		keywords: []string{"xox", "xapp-"},
		re:       lazyRE(`\b(xox[abposre]-[0-9]{6,}-[A-Za-z0-9-]{8,}|xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+)`),
		group:    1,
	},
	{
		id:       "slack-webhook",
		keywords: []string{"hooks.slack.com"},
		re:       lazyRE(`(?i)hooks\.slack\.com/(?:services|workflows|triggers)/([A-Za-z0-9+/_\-]{20,})`),
		group:    1,
	},
	{
		id:       "stripe-key",
		keywords: []string{"sk_live_", "rk_live_", "sk_test_", "rk_test_", "whsec_"},
		re:       lazyRE(`\b((?:sk|rk)_(?:live|test)_[A-Za-z0-9]{20,247}|whsec_[A-Za-z0-9+/]{32,})`),
		group:    1,
	},
	{
		id:       "openai-api-key",
		keywords: []string{"t3blbkfj", "sk-proj-", "sk-svcacct-", "sk-admin-", "sk-ant-"},
		re:       lazyRE(`\b(sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}T3BlbkFJ[A-Za-z0-9_\-]{20,}|sk-(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{40,}|sk-ant-(?:api|admin)\d\d-[A-Za-z0-9_\-]{80,})`),
		group:    1,
	},
	{
		id:       "google-api-key",
		keywords: []string{"aiza"},
		re:       lazyRE(`\b(AIza[0-9A-Za-z_\-]{35})(?:[^0-9A-Za-z_\-]|$)`),
		group:    1,
	},
	{
		id:       "npm-token",
		keywords: []string{"npm_"},
		re:       lazyRE(`\b(npm_[A-Za-z0-9]{36})\b`),
		group:    1,
	},
	{
		id:       "npm-auth",
		keywords: []string{"_authtoken", "_auth", "_password"},
		// .npmrc: //registry/:_authToken=..., _auth=base64(user:pass),
		// _password=base64(pass).
		re:    lazyRE(`(?i)(?:^|[\s:])_(?:authToken|auth|password)\s*=\s*["']?([^\s"'$]{8,})`),
		group: 1,
		valid: notPlaceholder,
	},
	{
		id:       "pypi-token",
		keywords: []string{"pypi-ageichlwas5vcmc"},
		re:       lazyRE(`\b(pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{50,})`),
		group:    1,
	},
	{
		id:       "pypirc-password",
		keywords: []string{"password"},
		re:       lazyRE(`(?i)^\s*password\s*[=:]\s*(\S+)`),
		group:    1,
		valid:    notPlaceholder,
		file:     func(base string) bool { return base == ".pypirc" },
	},
	{
		id:         "jwt",
		keywords:   []string{"eyj"},
		re:         lazyRE(`\b(eyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]{10,})`),
		group:      1,
		minEntropy: 3.5,
	},
	{
		id:       "basic-auth",
		keywords: []string{"authorization"},
		// Authorization: Basic base64(user:password).
		re:    lazyRE(`(?i)\bauthorization["']?\s*[:=]\s*["']?basic\s+([A-Za-z0-9+/]{8,}={0,2})(?:[^A-Za-z0-9+/=]|$)`),
		group: 1,
		valid: basicCredentials,
	},
	{
		id:          "basic-auth",
		keywords:    []string{"curl"},
		lineKeyword: true,
		// curl -u user:password, --user user:password (curl asks for a
		// password given none).
		re:    lazyRE(`(?:^|\s)(?:-u\s*|--user[=\s]\s*)(["']?)([^\s"'` + "`" + `:|;&]*):([^\s"'` + "`" + `|;&]+)`),
		group: 3,
		check: func(line string, m []int, v string) bool {
			return command(curlCmd, line[:m[0]]) && literalPassword(line[m[4]:m[5]], v)
		},
	},
	{
		id:          "cli-password",
		keywords:    []string{"mysql", "mariadb"},
		lineKeyword: true,
		// mysql -pPASSWORD (mysql asks for a password given -p alone;
		// -P is the port).
		re:    lazyRE(`-p["']?([^\s"'` + "`" + `|;&)]+)`),
		group: 1,
		check: func(line string, m []int, v string) bool {
			// A flag of its own (not --port=, not a-pb), of mysql's; and
			// go-ycsb's -pname=value after "mysql" is a property.
			return m[0] > 0 && (line[m[0]-1] == ' ' || line[m[0]-1] == '\t') && command(mysqlCmd, line[:m[0]]) &&
				!property(v) && literalPassword(lineUser(line), v)
		},
	},
	{
		id:       "cli-password",
		keywords: []string{"-password"},
		// --password=PASSWORD, --password PASSWORD.
		re:    lazyRE(`(?:^|\s)--(?:db-|mysql-)?password(?:=|\s+)["']?([^\s"'` + "`" + `|;&)]+)`),
		group: 1,
		check: func(line string, m []int, v string) bool { return literalPassword(lineUser(line), v) },
	},
	{
		id:       "password-assignment",
		keywords: []string{"_pass", "_pwd"},
		// An environment assignment as a shell or a .env file writes it
		// (DB_PASS=value, no blank around =) or YAML (MYSQL_PWD: value):
		// the name says what the value is, so a literal is a password
		// however it looks. The name has a prefix (PWD is the working
		// directory, "--- PASS: TestX" a test's result); name = value,
		// with blanks, is code, and "NAME="+x builds one.
		re:    lazyRE(`(?:^|[^A-Za-z0-9_])(?:[A-Z0-9]+_)+(?:PASS|PASSWD|PASSWORD|PWD|PASSPHRASE)(?:=|:\s+)["']?([^\s"'` + "`" + `|;&)+][^\s"'` + "`" + `|;&)]*)`),
		group: 1,
		check: func(line string, m []int, v string) bool { return literalPassword("", v) },
	},
	{
		id:         "bearer-token",
		keywords:   []string{"bearer"},
		re:         lazyRE(`(?i)\bauthorization["']?\s*[:=]\s*["']?bearer\s+([A-Za-z0-9._~+/\-]{20,}=*)`),
		group:      1,
		minEntropy: 3.5,
	},
	{
		id:       "connection-string-password",
		keywords: []string{"://"},
		// scheme://user:password@host
		re:    lazyRE(`(?i)\b[a-z][a-z0-9+.\-]{1,20}://[^\s:/@"'<>]{1,64}:([^\s@/"'<>]{1,128})@[a-z0-9.\-\[\]_]+`),
		group: 1,
		valid: urlPassword,
	},
	{
		id: "password-assignment",
		keywords: []string{"password", "passwd", "pwd", "passphrase", "secret", "token", "api_key", "apikey", "api-key",
			"access_key", "accesskey", "access-key", "auth_key", "authkey", "auth-key", "credential", "密码", "口令", "密钥", "令牌"},
		// name = value, name: value, name := value, "name": "value",
		// --name=value; in Chinese too (数据库密码：value, 口令为 value,
		// a full-width colon), and with quotes escaped (\"value\" in a
		// notebook's JSON or a string literal). The value ends at the
		// first character that is not ASCII (，请勿外传).
		re:    lazyRE(`(?i)(?:^|[^a-z0-9])[a-z0-9_\-]*?(?:password|passwd|pwd|passphrase|secret|token|api[_\-]?key|access[_\-]?key|auth[_\-]?key|credential|密码|口令|密钥|令牌)s?[a-z0-9_\-]*\\?["']?\s*(?::=|=>|[:=：]|是|为)\s*\\?["'` + "`" + `]?((?-i:[^\s"'` + "`" + `,;&\\\x{80}-\x{10FFFF}]+))`),
		group: 1,
		valid: randomValue,
	},
}

// encodedPrivateKey says v is base64 of a PEM private key: its first
// line, decoded, names one (a certificate's does not).
func encodedPrivateKey(v string) bool {
	n := min(len(v), 72) &^ 3
	head, err := base64.StdEncoding.DecodeString(v[:n])
	if err != nil {
		return false
	}
	first, _, _ := strings.Cut(string(head), "\n")
	return strings.Contains(first, "PRIVATE KEY")
}

// mixed says v has upper case letters, lower case letters and digits.
func mixed(v string) bool {
	var up, low, dig bool
	for i := 0; i < len(v); i++ {
		c := v[i]
		up = up || c >= 'A' && c <= 'Z'
		low = low || c >= 'a' && c <= 'z'
		dig = dig || c >= '0' && c <= '9'
	}
	return up && low && dig
}

// placeholders are values that stand for a secret without being one.
var placeholders = map[string]bool{
	"password": true, "passwd": true, "pass": true, "pwd": true, "secret": true, "token": true, "changeme": true,
	"yourpassword": true, "your_password": true, "your-password": true, "mypassword": true, "my_password": true,
	"xxx": true, "xxxx": true, "none": true, "null": true, "nil": true, "true": true, "false": true, "undefined": true,
	"example": true, "redacted": true, "hidden": true, "dummy": true, "test": true, "required": true, "optional": true,
}

// notPlaceholder rejects values that only stand for a secret: a variable
// ($X, ${X}, %s, {{x}}, <x>), a masked value (***, xxxx) or a word such as
// "password".
func notPlaceholder(v string) bool {
	if v == "" || strings.ContainsAny(v, "$<>{}%*[]()") {
		return false
	}
	l := strings.ToLower(v)
	if placeholders[l] || strings.HasPrefix(l, "your") || strings.Contains(l, "xxxx") || strings.Contains(l, "redacted") {
		return false
	}
	for i := 1; i < len(l); i++ { // one character repeated
		if l[i] != l[0] {
			return true
		}
	}
	return false
}

// urlPassword accepts the password of scheme://user:password@host unless
// it is a placeholder or a demo value the docs repeat everywhere: under
// four characters (gopher:go@) or only digits (root:123456@).
func urlPassword(v string) bool {
	if len(v) < 4 || strings.Trim(v, "0123456789") == "" {
		return false
	}
	return notPlaceholder(v)
}

// wellKnown are passwords a product documents as its default login, and
// flag help's type names (--password string): not secrets.
var wellKnown = map[string]bool{"root": true, "admin": true, "guest": true, "demo": true, "default": true, "string": true}

// literalPassword accepts a password written out beside its name, or its
// user (mysql -p, curl -u, DB_PASS=): as a URL's password (no variable
// or placeholder, at least four characters, not only digits), not a
// number (0x1f), not a default login (wellKnown) and not the user name
// again (admin/admin).
func literalPassword(user, v string) bool {
	l := strings.ToLower(v)
	if wellKnown[l] || l == strings.ToLower(user) || strings.HasPrefix(l, "0x") && strings.Trim(l[2:], "0123456789abcdef") == "" {
		return false
	}
	return urlPassword(v)
}

// lineUser is the user a command line names (-u NAME, -uNAME, --user=NAME,
// --username NAME), "" for none.
func lineUser(line string) string {
	if m := userFlag().FindStringSubmatch(line); m != nil {
		return m[1]
	}
	return ""
}

var userFlag = lazyRE(`(?:^|\s)(?:-u\s*|--user(?:name)?[=\s]\s*)["']?([^\s"'` + "`" + `]+)`)

// mysqlCmd and curlCmd find the command a flag belongs to, in the text
// of its shell command before the flag (command).
var (
	mysqlCmd = lazyRE(`(?:^|[\s/"'(])(?:mysql|mariadb)(?:dump|admin|sh|import|slap|check|binlog|pump)?(?:\.exe)?\s`)
	curlCmd  = lazyRE(`(?:^|[\s/"'(])curl(?:\.exe)?\s`)
)

// command says the shell command that ends with before (the text after
// its last |, ; or &) is the one re finds.
func command(re func() *regexp.Regexp, before string) bool {
	if i := strings.LastIndexAny(before, "|;&"); i >= 0 {
		before = before[i+1:]
	}
	return re().MatchString(before + " ")
}

// property: name=value, as go-ycsb's -p takes it.
func property(v string) bool {
	name, _, ok := strings.Cut(v, "=")
	return ok && name != "" && strings.Trim(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ._") == ""
}

// basicCredentials accepts HTTP Basic credentials: base64 of
// user:password, the password a literal one.
func basicCredentials(v string) bool {
	b, err := base64.StdEncoding.DecodeString(v)
	if err != nil {
		return false
	}
	user, pass, ok := strings.Cut(string(b), ":")
	for _, c := range b {
		if c < 0x20 || c == 0x7f {
			return false // not text: some other base64
		}
	}
	return ok && literalPassword(user, pass)
}

// randomValue accepts the value of a password = value assignment when it
// looks generated rather than written: long enough, high entropy, more
// than one kind of character, and not code (a call, a field, a variable).
func randomValue(v string) bool {
	v = strings.TrimRight(v, ".)]}>")
	if len(v) < 10 || !notPlaceholder(v) || strings.ContainsAny(v, `\#`) {
		return false
	}
	if v[0] == '/' || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "~/") || strings.Contains(v, "://") {
		return false // a path or a URL (a URL with a password has its own rule)
	}
	if strings.Contains(v, ":") && wordsOnly(strings.ReplaceAll(v, ":", "")) {
		return false // a format spelled out: name:password:GID:user_list
	}
	var up, low, dig, sym int
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c >= 'A' && c <= 'Z':
			up++
		case c >= 'a' && c <= 'z':
			low++
		case c >= '0' && c <= '9':
			dig++
		case c >= 0x80:
			return false // prose, not a key
		default:
			sym++
		}
	}
	if identifierLike(v) {
		// getenv_password, Config.Token, tokenSource2: code, unless it
		// is long and random: written names switch between upper case,
		// lower case and digits a few times, generated ones all along.
		return len(v) >= 12 && dig > 0 && switches(v)*4 >= len(v) && entropy(v) >= 3.3
	}
	classes := 0
	for _, n := range []int{up, low, dig, sym} {
		if n > 0 {
			classes++
		}
	}
	return classes >= 2 && dig+sym > 0 && entropy(v) >= 3.2
}

// wordsOnly: letters and '_' only.
func wordsOnly(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_') {
			return false
		}
	}
	return true
}

// switches counts the changes between upper case, lower case and digit
// from one character to the next.
func switches(v string) int {
	class := func(c byte) int {
		switch {
		case c >= 'A' && c <= 'Z':
			return 1
		case c >= 'a' && c <= 'z':
			return 2
		case c >= '0' && c <= '9':
			return 3
		}
		return 0
	}
	n, last := 0, 0
	for i := 0; i < len(v); i++ {
		c := class(v[i])
		if c != 0 && last != 0 && c != last {
			n++
		}
		if c != 0 {
			last = c
		}
	}
	return n
}

// identifierLike: letters, digits, '_' and '.', '-' between words; what
// names in code and configuration look like.
func identifierLike(v string) bool {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

// secretNames and secretExts are files that hold secrets by their nature:
// they are neither indexed nor served, whatever they contain.
var secretNames = map[string]bool{
	".env": true, "id_rsa": true, "id_dsa": true, "id_ecdsa": true, "id_ed25519": true, ".netrc": true, "_netrc": true,
	".pgpass": true, "credentials": true, ".htpasswd": true, "secrets.yml": true, "secrets.yaml": true, "secrets.json": true,
	".git-credentials": true,
}

var secretExts = map[string]bool{".pem": true, ".key": true, ".p12": true, ".pfx": true, ".jks": true, ".keystore": true, ".asc": true, ".gpg": true}

// InPath says a file's path itself holds a secret (a token as its name):
// like a secrets file it is neither indexed nor served, as its path would
// be in every citation. RedactText(file, file) is the path to show.
func (p *Policy) InPath(file string) bool { return len(p.Find(file, file)) > 0 }

// IsSecretFile says, from its path alone, that a file holds secrets by its
// nature (.env, *.pem, id_rsa, ...): it is skipped by the indexer and
// refused to agents.
func IsSecretFile(p string) bool {
	base := strings.ToLower(path.Base(p))
	return secretNames[base] || strings.HasPrefix(base, ".env.") || strings.HasPrefix(base, "id_rsa") || secretExts[path.Ext(base)]
}
