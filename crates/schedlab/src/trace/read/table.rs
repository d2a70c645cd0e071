//! Rows to columns: the table a DataFrame is made of. Columns `ts`, `cpu`, `event`,
//! `common_comm`, `common_pid` come first, then every field in the order it first appears;
//! a row without a field has `None` there.

use super::{FieldValue, TraceEvent};
use std::collections::BTreeMap;

/// One column's values.
#[derive(Debug, Clone, PartialEq)]
pub enum Column {
    Int(Vec<Option<i64>>),
    Text(Vec<Option<String>>),
}

/// Column name and values, in display order.
pub type Table = Vec<(String, Column)>;

/// The events as columns. A field that is an integer in some rows and a text in others
/// becomes a text column.
pub fn to_columns(events: &[TraceEvent]) -> Table {
    let n = events.len();
    let mut order: Vec<String> = Vec::new();
    let mut textual: BTreeMap<String, bool> = BTreeMap::new();
    for e in events {
        for (k, v) in &e.fields {
            let t = textual.entry(k.clone()).or_insert_with(|| {
                order.push(k.clone());
                false
            });
            *t |= matches!(v, FieldValue::Text(_));
        }
    }
    let mut table: Table = vec![
        (
            "ts".into(),
            Column::Int(events.iter().map(|e| Some(e.ts as i64)).collect()),
        ),
        (
            "cpu".into(),
            Column::Int(events.iter().map(|e| e.cpu.map(i64::from)).collect()),
        ),
        (
            "event".into(),
            Column::Text(events.iter().map(|e| Some(e.event.clone())).collect()),
        ),
        (
            "common_comm".into(),
            Column::Text(events.iter().map(|e| e.common_comm.clone()).collect()),
        ),
        (
            "common_pid".into(),
            Column::Int(events.iter().map(|e| e.common_pid.map(i64::from)).collect()),
        ),
    ];
    let index: BTreeMap<&str, usize> = order
        .iter()
        .enumerate()
        .map(|(i, k)| (k.as_str(), i))
        .collect();
    let mut cols: Vec<Column> = order
        .iter()
        .map(|k| {
            if textual[k] {
                Column::Text(vec![None; n])
            } else {
                Column::Int(vec![None; n])
            }
        })
        .collect();
    for (row, e) in events.iter().enumerate() {
        for (k, v) in &e.fields {
            match (&mut cols[index[k.as_str()]], v) {
                (Column::Int(c), FieldValue::Int(i)) => c[row] = Some(*i),
                (Column::Text(c), FieldValue::Int(i)) => c[row] = Some(i.to_string()),
                (Column::Text(c), FieldValue::Text(s)) => c[row] = Some(s.clone()),
                (Column::Int(_), FieldValue::Text(_)) => {
                    unreachable!("text fields make text columns")
                }
            }
        }
    }
    table.extend(order.into_iter().zip(cols));
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn union_of_fields_with_gaps() {
        let ev = |event: &str, fields: Vec<(&str, FieldValue)>| TraceEvent {
            ts: 1,
            cpu: Some(0),
            event: event.into(),
            common_comm: None,
            common_pid: None,
            fields: fields.into_iter().map(|(k, v)| (k.into(), v)).collect(),
        };
        let t = to_columns(&[
            ev("a", vec![("x", FieldValue::Int(1))]),
            ev(
                "b",
                vec![
                    ("y", FieldValue::Text("s".into())),
                    ("x", FieldValue::Text("q".into())),
                ],
            ),
        ]);
        let names: Vec<_> = t.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            names,
            ["ts", "cpu", "event", "common_comm", "common_pid", "x", "y"]
        );
        assert_eq!(
            t[5].1,
            Column::Text(vec![Some("1".into()), Some("q".into())])
        );
        assert_eq!(t[6].1, Column::Text(vec![None, Some("s".into())]));
    }
}
