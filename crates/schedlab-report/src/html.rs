//! The page shell: inline CSS, a section helper, tables, escaping, and the one inline
//! script (sortable tables, the hover read-out of chart points). Nothing is fetched.

use std::fmt::Write as _;

pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '&' => o.push_str("&amp;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

const STYLE: &str = "body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1200px}
h1{font-size:22px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #ddd}
table{border-collapse:collapse;font-size:13px}td,th{padding:3px 8px;border-bottom:1px solid #eee;text-align:right}
th{cursor:pointer;background:#f6f6f6}td:first-child,th:first-child{text-align:left}
.kv td{text-align:left}.note{color:#666;font-size:12px}svg{display:block;margin:8px 0}
svg text{font:11px system-ui,sans-serif;fill:#333}.sig{font-weight:bold}
#tip{position:fixed;pointer-events:none;background:#222;color:#fff;padding:2px 6px;font-size:12px;border-radius:3px;display:none}";

/// Sort a table by a clicked header; show `data-tip` of the hovered SVG element.
const SCRIPT: &str = r#"(function(){
document.querySelectorAll('table.sortable th').forEach(function(th,i){
 th.addEventListener('click',function(){
  var tb=th.closest('table').tBodies[0];var rows=Array.prototype.slice.call(tb.rows);
  var asc=th.dataset.asc!=='1';th.dataset.asc=asc?'1':'0';
  rows.sort(function(a,b){var x=a.cells[i].dataset.v||a.cells[i].textContent,y=b.cells[i].dataset.v||b.cells[i].textContent;
   var nx=parseFloat(x),ny=parseFloat(y);var c=(!isNaN(nx)&&!isNaN(ny))?nx-ny:x.localeCompare(y);return asc?c:-c;});
  rows.forEach(function(r){tb.appendChild(r);});});});
var tip=document.getElementById('tip');
document.addEventListener('mouseover',function(e){var t=e.target.getAttribute&&e.target.getAttribute('data-tip');
 if(t){tip.textContent=t;tip.style.display='block';}else{tip.style.display='none';}});
document.addEventListener('mousemove',function(e){tip.style.left=(e.clientX+12)+'px';tip.style.top=(e.clientY+12)+'px';});
})();"#;

pub fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
         <link rel=\"icon\" href=\"data:,\">\
         <title>{t}</title><style>{STYLE}</style></head><body>\n<h1>{t}</h1>\n{body}\
         <div id=\"tip\"></div><script>{SCRIPT}</script></body></html>\n",
        t = esc(title)
    )
}

pub fn section(title: &str, inner: &str) -> String {
    format!("<h2>{}</h2>\n{inner}\n", esc(title))
}

pub fn note(text: &str) -> String {
    format!("<p class=\"note\">{}</p>", esc(text))
}

/// A key/value table.
pub fn kv(rows: &[(String, String)]) -> String {
    let mut s = String::from("<table class=\"kv\">");
    for (k, v) in rows {
        let _ = write!(s, "<tr><th>{}</th><td>{}</td></tr>", esc(k), esc(v));
    }
    s.push_str("</table>");
    s
}

/// A sortable table; cells are text (escaped here).
pub fn table(head: &[String], rows: &[Vec<String>]) -> String {
    let mut s = String::from("<table class=\"sortable\"><thead><tr>");
    for h in head {
        let _ = write!(s, "<th>{}</th>", esc(h));
    }
    s.push_str("</tr></thead><tbody>");
    for r in rows {
        s.push_str("<tr>");
        for c in r {
            let _ = write!(s, "<td>{}</td>", esc(c));
        }
        s.push_str("</tr>");
    }
    s.push_str("</tbody></table>");
    s
}

/// A JSON value as a table cell.
pub fn cell(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Null => String::new(),
        serde_json::Value::Number(n) => match n.as_f64() {
            Some(f) if n.is_f64() => num(f),
            _ => n.to_string(),
        },
        other => other.to_string(),
    }
}

/// A number with at most 4 significant decimals.
pub fn num(x: f64) -> String {
    if x == x.trunc() && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else if x.abs() >= 100.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.4}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_numbers() {
        assert_eq!(esc("<a&'\">"), "&lt;a&amp;&#39;&quot;&gt;");
        assert_eq!(num(3.0), "3");
        assert_eq!(num(0.123456), "0.1235");
        assert!(page("t", "").contains("<script>"));
    }
}
