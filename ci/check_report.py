#!/usr/bin/env python3
"""The HTML report in a real browser: `schedlab run --html` and `schedlab ab --html` pages
opened in headless Chromium (Debian's `chromium`), which must log no console error or
uncaught exception, and whose screenshot must not be blank.

Usage: check_report.py SCHEDLAB_BIN OUT_DIR  (needs chromium on the PATH, matplotlib to
read the PNG). Exit 0 when every page passes, 1 otherwise."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

# Runs before the page's own script: records errors and console.error calls in the DOM,
# where --dump-dom shows them.
PROBE = """<script>(function(){var errs=[];function put(){var n=document.getElementById('__probe');
if(!n){n=document.createElement('pre');n.id='__probe';(document.body||document.documentElement).appendChild(n);}
n.textContent='PRO'+'BE['+errs.join(' | ')+']';}
window.addEventListener('error',function(e){errs.push('error: '+e.message);put();});
var ce=console.error;console.error=function(){errs.push('console.error: '+Array.prototype.join.call(arguments,' '));put();ce.apply(console,arguments);};
document.addEventListener('DOMContentLoaded',put);})();</script>"""

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
         "--disable-extensions", "--disable-background-networking", "--allow-file-access-from-files"]


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        p = shutil.which(name)
        if p:
            return p
    sys.exit("check_report: chromium not found (apt-get install chromium)")


def browse(browser, args, timeout=120):
    return subprocess.run([browser, *FLAGS, *args], capture_output=True, text=True, timeout=timeout)


def check_page(browser, html: Path, out: Path) -> list:
    problems = []
    probed = out / (html.stem + ".probe.html")
    text = html.read_text(encoding="utf-8")
    if re.search(r"""(src|href)\\s*=\\s*["']https?://""", text):
        problems.append("the page loads something from the network")
    probed.write_text(text.replace("<head>", "<head>" + PROBE, 1), encoding="utf-8")
    dom = browse(browser, ["--enable-logging=stderr", "--v=0", "--dump-dom", probed.as_uri()])
    m = re.search(r"PROBE\[(.*?)\]", dom.stdout, re.S)
    if not m:
        problems.append(f"the page did not load (no probe in the DOM; exit {dom.returncode})")
    elif m.group(1).strip():
        problems.append("console: " + m.group(1).strip())
    for line in dom.stderr.splitlines():
        if "CONSOLE" in line and ("ERROR" in line or "Uncaught" in line):
            problems.append("console: " + line.strip())
    shot = out / (html.stem + ".png")
    browse(browser, ["--window-size=1280,1600", f"--screenshot={shot}", html.resolve().as_uri()])
    if not shot.exists() or shot.stat().st_size == 0:
        problems.append("no screenshot")
    else:
        import matplotlib.image as mpimg

        img = mpimg.imread(str(shot))[:, :, :3]
        inked = (img.mean(axis=2) < 0.9).mean()
        colored = (img.std(axis=2) > 0.1).mean()
        print(f"check_report: {html.name}: screenshot {shot}, {inked:.1%} inked, {colored:.1%} colored")
        if inked < 0.01 or colored < 0.002:
            problems.append(f"screenshot looks blank ({inked:.2%} inked, {colored:.2%} colored)")
    return problems


def main():
    bin_, out = Path(sys.argv[1]), Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    browser = chromium()
    run_html, ab_html = out / "run.html", out / "ab.html"
    wl = ["-m", "smp:2", "-w", "hackbench -g 2 -l 100", "-s", "1"]
    subprocess.run([str(bin_), "run", *wl, "-q", "--json", str(out / "run.json"),
                    "--trace", str(out / "run.pftrace"), "--trace-counters", "all", "--html", str(run_html)], check=True)
    subprocess.run([str(bin_), "report", str(out / "run.json"), "--trace", str(out / "run.pftrace"),
                    "-o", str(out / "report.html")], check=True)
    subprocess.run([str(bin_), "ab", *wl[:4], "--base", "noise.work_jitter_pct=2", "--patch",
                    "noise.work_jitter_pct=2", "--patch", "features=NO_DELAY_DEQUEUE", "-n", "3",
                    "--metric", "perf.*", "--html", str(ab_html)], check=True, stdout=subprocess.DEVNULL)
    failed = 0
    for page in (run_html, out / "report.html", ab_html):
        problems = check_page(browser, page, out)
        for p in problems:
            print(f"check_report: {page.name}: FAIL: {p}")
        failed += bool(problems)
    passed = 3 - failed
    print(f"check_report: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
