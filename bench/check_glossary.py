#!/usr/bin/env python3
"""Validate expand/glossary.tsv and report its coverage (issue 13).

Checks the format agreed for the glossary (UTF-8, `中文<TAB>en1|en2|...`,
`# == section ==` comments, blank lines), finds duplicate Chinese terms and
repeated English terms inside an entry, and reports:

  * entries, distinct English terms, entries per section;
  * English fan-in: English terms shared by many Chinese entries (an English
    query word maps back to one of them, see expand/internal/table, so a high
    fan-in means a choice among many senses);
  * Chinese terms the segmenter's dictionary (segment/zhdict.txt) lacks: those
    only match if the expansion looks them up itself (longest match over the
    query) rather than per segmented word;
  * with --go DIR: how many English terms occur as identifier parts
    (camelCase / snake_case split, lower-cased) in the Go files under DIR;
  * with --docs DIR: how many Chinese terms occur in the Markdown under DIR.

Exit status 1 if the file breaks the format, has duplicates, or holds fewer
than --min entries. Python 3 standard library only.

    python3 bench/check_glossary.py \
        --go "$(go env GOROOT)/src" --docs /tmp/glossary/docs
"""
import argparse
import collections
import os
import re
import sys

SECTION = re.compile(r"^# == ([a-z0-9 ,/&-]+) ==$")
HAN = re.compile(r"^[\u3400-\u4dbf\u4e00-\u9fff]+$")
EN_TERM = re.compile(r"^[a-z0-9]+( [a-z0-9]+)*$")
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# camelCase / acronym / digit boundaries: HTTPServer -> HTTP Server, parseURL2 -> parse URL 2
PARTS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
WORD = re.compile(r"[a-z0-9]+")


def parse(path):
    """Return (entries, errors); entries are (line, section, zh, [en...])."""
    entries, errors = [], []
    section = None
    with open(path, encoding="utf-8") as f:  # a decode error is a format error too
        for n, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if line.endswith("\r"):
                errors.append(f"{n}: CRLF line ending")
                line = line[:-1]
            if not line.strip():
                continue
            if line.startswith("#"):
                m = SECTION.match(line)
                if m:
                    section = m.group(1)
                elif line.startswith("# =="):
                    errors.append(f"{n}: malformed section comment {line!r}")
                continue
            cols = line.split("\t")
            if len(cols) != 2:
                errors.append(f"{n}: want one TAB between Chinese and English, got {len(cols) - 1}: {line!r}")
                continue
            zh, en = cols
            if not HAN.match(zh):
                errors.append(f"{n}: Chinese side must be Han characters only: {zh!r}")
            if section is None:
                errors.append(f"{n}: entry before the first '# == section ==' comment")
            terms = en.split("|")
            for t in terms:
                if not EN_TERM.match(t):
                    errors.append(f"{n}: English term must be lowercase [a-z0-9] words separated by one space: {t!r}")
            dup = [t for t, c in collections.Counter(terms).items() if c > 1]
            if dup:
                errors.append(f"{n}: {zh}: English term repeated: {', '.join(dup)}")
            seen_multi = False
            for t in terms:
                if " " in t:
                    seen_multi = True
                elif seen_multi:
                    errors.append(f"{n}: {zh}: single-word term {t!r} after a multi-word one (code-side words first)")
                    break
            entries.append((n, section, zh, terms))
    first = {}
    for n, _, zh, terms in entries:
        if zh in first:
            errors.append(f"{n}: {zh} already defined on line {first[zh][0]} "
                          f"({'|'.join(first[zh][1])} vs {'|'.join(terms)}): merge them")
        else:
            first[zh] = (n, terms)
    return entries, errors


def go_words(root):
    """Identifier parts and all lower-case words of the .go files under root."""
    parts, words = set(), set()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != "testdata"]
        for name in filenames:
            if not name.endswith(".go"):
                continue
            with open(os.path.join(dirpath, name), encoding="utf-8", errors="replace") as f:
                text = f.read()
            for ident in set(IDENT.findall(text)):
                parts.add(ident.lower())
                for piece in ident.split("_"):
                    if piece:
                        parts.add(piece.lower())
                        parts.update(p.lower() for p in PARTS.findall(piece))
            words.update(WORD.findall(text.lower()))
    return parts, words


def docs_text(root):
    chunks = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for name in filenames:
            if name.endswith(".md"):
                with open(os.path.join(dirpath, name), encoding="utf-8", errors="replace") as f:
                    chunks.append(f.read())
    return "\n".join(chunks)


def load_zhdict(path):
    words = set()
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.startswith("#"):
                words.add(line.split("\t", 1)[0])
    return words


def load_stop(path):
    """The analyzer's stop words (segment.go: enStop, zhStop): a query never
    holds them, so an entry made of them never fires."""
    stop = set()
    try:
        with open(path, encoding="utf-8") as f:
            src = f.read()
    except OSError:
        return stop
    for name in ("enStop", "zhStop"):
        m = re.search(r"var " + name + r" = setOf\(`([^`]*)`\)", src)
        if m:
            stop.update(m.group(1).split())
    return stop


def pct(a, b):
    return f"{a}/{b} ({100.0 * a / b:.1f}%)" if b else "0/0"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.dirname(here)
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file", nargs="?", default=os.path.join(repo, "expand", "glossary.tsv"))
    ap.add_argument("--min", type=int, default=900, help="fewest entries accepted (default 900)")
    ap.add_argument("--go", metavar="DIR", help="Go source tree, e.g. $(go env GOROOT)/src")
    ap.add_argument("--docs", metavar="DIR", help="Chinese Markdown corpus, e.g. a clone of tidb-docs-cn")
    ap.add_argument("--zhdict", default=os.path.join(repo, "segment", "zhdict.txt"))
    ap.add_argument("-v", "--verbose", action="store_true", help="list the terms not found")
    args = ap.parse_args()

    try:
        entries, errors = parse(args.file)
    except (OSError, UnicodeDecodeError) as e:
        print(f"check_glossary: {args.file}: {e}", file=sys.stderr)
        return 1
    stop = load_stop(os.path.join(os.path.dirname(args.zhdict), "segment.go"))
    for n, _, zh, terms in entries:
        if zh in stop:
            errors.append(f"{n}: {zh} is a stop word of the analyzer: it never reaches expansion")
        for t in terms:
            if t in stop:
                errors.append(f"{n}: {zh}: English {t!r} is a stop word of the analyzer: drop it")
    for e in errors:
        print(f"{args.file}:{e}")

    en_all = collections.Counter(t for _, _, _, terms in entries for t in terms)
    per_section = collections.Counter(s for _, s, _, _ in entries)
    print(f"entries: {len(entries)} Chinese terms, {len(en_all)} distinct English terms, "
          f"{sum(len(t) for _, _, _, t in entries)} zh-en pairs")
    print("sections: " + ", ".join(f"{s} {c}" for s, c in per_section.items()))
    print("largest English fan-in: " + ", ".join(f"{t} {c}" for t, c in en_all.most_common(12)))

    if os.path.exists(args.zhdict):
        dic = load_zhdict(args.zhdict)
        missing = [zh for _, _, zh, _ in entries if zh not in dic]
        print(f"Chinese terms in the segmenter dictionary: {pct(len(entries) - len(missing), len(entries))}")
        if args.verbose:
            print("  not in it: " + " ".join(missing))

    if args.go:
        parts, words = go_words(args.go)
        single = [t for t in en_all if " " not in t]
        multi = [t for t in en_all if " " in t]
        hit_single = [t for t in single if t in parts]
        hit_multi = [t for t in multi if all(w in words for w in t.split())]
        hit_entry = [zh for _, _, zh, terms in entries
                     if any(t in parts if " " not in t else all(w in words for w in t.split()) for t in terms)]
        print(f"Go source ({args.go}):")
        print(f"  single-word English terms that are identifier parts: {pct(len(hit_single), len(single))}")
        print(f"  multi-word English terms whose words all occur:      {pct(len(hit_multi), len(multi))}")
        print(f"  entries with at least one English term found:        {pct(len(hit_entry), len(entries))}")
        if args.verbose:
            print("  single-word terms not found: " + " ".join(sorted(set(single) - set(hit_single))))

    if args.docs:
        text = docs_text(args.docs)
        hit = [zh for _, _, zh, _ in entries if zh in text]
        print(f"docs ({args.docs}, {len(text)} chars of Markdown):")
        print(f"  Chinese terms that occur: {pct(len(hit), len(entries))}")
        if args.verbose:
            print("  not found: " + " ".join(zh for _, _, zh, _ in entries if zh not in text))

    if len(entries) < args.min:
        print(f"{args.file}: {len(entries)} entries, fewer than --min {args.min}")
        return 1
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
