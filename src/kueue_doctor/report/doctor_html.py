"""The diagnosis as one offline HTML file: violations with quota bars, steps, causes."""
from __future__ import annotations

from html import escape

from ..api.quantity import format_amount

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2em;max-width:1250px;color:#222}
td.nw{white-space:nowrap}
h1{font-size:1.5em} h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.5em 0} td,th{padding:4px 10px;border-bottom:1px solid #eee;text-align:left}
.pass{color:#1a7f37}.fail{color:#cf222e}.unknown{color:#9a6700}.skipped{color:#666}
.bar{position:relative;height:14px;width:360px;background:#f3f3f3;border:1px solid #ccc}
.bar span{position:absolute;top:0;height:14px}
.used{background:#5b8def}.fits{background:#f2a43a;opacity:.85}
.cause{border-left:4px solid #cf222e;padding:.3em 1em;margin:1em 0;background:#fafafa}
.small{color:#666;font-size:.9em} code{background:#f3f3f3;padding:0 3px}
"""


def _bar(nominal: int, reserved: int, fits: int, title: str) -> str:
    scale = max(nominal, reserved + fits, 1)
    used_w = min(reserved / scale, 1) * 100
    fits_w = min(fits / scale, 1 - used_w / 100) * 100
    nominal_x = min(nominal / scale, 1) * 100
    return (f'<div class="bar" title="{escape(title)}"><span class="used" style="left:0;width:{used_w:.1f}%"></span>'
            f'<span class="fits" style="left:{used_w:.1f}%;width:{fits_w:.1f}%"></span>'
            f'<span style="left:{nominal_x:.1f}%;width:2px;background:#000"></span></div>')


def render(diagnosis) -> str:
    """``diagnosis``: a doctor Diagnosis; figures come from its facts as numbers, never re-parsed."""
    d = diagnosis.to_json()
    out = ["<!doctype html><html><head><meta charset='utf-8'><title>kueue-doctor diagnosis</title>",
           f"<style>{CSS}</style></head><body>",
           f"<h1>kueue-doctor diagnosis</h1><p class='small'>Kueue {escape(d.get('kueueVersion') or 'version unknown')}"
           f", snapshot at {escape(d.get('snapshotTime', ''))}</p>"]
    out.append("<h2>Guarantee violations</h2>")
    if d["violations"]:
        out.append("<table><tr><th>ClusterQueue</th><th>flavor/resource</th><th>nominal</th><th>reserved</th>"
                   "<th>pending that fits</th><th></th><th>waiting</th><th>since</th></tr>")
        for v in diagnosis.violations:
            for fr, x in v.resources.items():
                q = {k: format_amount(fr[1], n) for k, n in
                     (("nominal", x.nominal), ("reserved", x.reserved), ("fits", x.pending_that_fits))}
                since = v.since.strftime("%Y-%m-%dT%H:%M:%SZ") if v.since else "-"
                title = ", ".join(f"{k} {n}" for k, n in q.items())
                out.append(f"<tr><td>{escape(v.cluster_queue)}</td><td>{escape(fr[0] + '/' + fr[1])}</td>"
                           f"<td>{escape(q['nominal'])}</td><td>{escape(q['reserved'])}</td><td>{escape(q['fits'])}</td>"
                           f"<td>{_bar(x.nominal, x.reserved, x.pending_that_fits, title)}</td>"
                           f"<td>{len(v.pending_workloads)}</td><td class='nw'>{escape(since)}</td></tr>")
        out.append("</table><p class='small'>blue: reserved; orange: pending work that fits the nominal quota; "
                   "black line: nominal quota.</p>")
    elif d["verdict"] == "unknown":
        out.append(f"<p class='unknown'>Unknown: {escape(d['steps'][0]['summary'])}</p>")
    else:
        out.append("<p class='pass'>No guarantee violation.</p>")
    out.append("<h2>Causes</h2>")
    if not d["causes"]:
        out.append("<p>None: no violation to explain.</p>" if d["verdict"] != "unknown" else
                   "<p class='unknown'>None found: the snapshot does not show whether a guarantee is violated.</p>")
    for i, c in enumerate(d["causes"], 1):
        out.append(f"<div class='cause'><b>{i}. {escape(c['id'])}</b> <span class='small'>({escape(c['confidence'])} "
                   f"confidence; {escape(', '.join(c['clusterQueues']) or 'cluster-wide')})</span>"
                   f"<p>{escape(c['summary'])}</p><ul>"
                   + "".join(f"<li>{escape(e)}</li>" for e in c["evidence"])
                   + f"</ul><p><i>Remedy:</i> {escape(c['remedy'])}</p></div>")
    out.append("<h2>The six steps</h2><table><tr><th>step</th><th>status</th><th>summary</th></tr>")
    for s in d["steps"]:
        out.append(f"<tr><td>{s['step']}. {escape(s['name'])}</td><td class='{s['status']}'>{s['status']}</td>"
                   f"<td>{escape(s['summary'])}" + ("<ul>" + "".join(f"<li class='small'>{escape(e)}</li>"
                                                                      for e in s["evidence"][:20]) + "</ul>"
                                                       if s["evidence"] else "") + "</td></tr>")
    out.append("</table>")
    if d.get("warnings"):
        out.append("<h2>Warnings</h2><ul>" + "".join(
            f"<li><b>{escape(w['id'])}</b> ({escape(w['confidence'])}): {escape(w['summary'])}</li>"
            for w in d["warnings"]) + "</ul>")
    if d.get("releaseNotes"):
        out.append("<h2>Release notes</h2><ul>" + "".join(f"<li>{escape(n)}</li>" for n in d["releaseNotes"]) + "</ul>")
    out.append("</body></html>")
    return "\n".join(out)
