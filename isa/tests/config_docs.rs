//! `docs/config.md` agrees with the code: its field table names every
//! field of `CoreConfig`, each with the default that `CoreConfig::default()`
//! has (the table once said 4 warps while the core had 8).

use concord_isa::config::CoreConfig;

const DOC: &str = include_str!("../../docs/config.md");

/// `(field, default)` of every row of the "Fields" table.
fn documented_defaults() -> Vec<(String, String)> {
    let table = &DOC[DOC.find("## Fields").expect("a Fields section")..];
    table
        .lines()
        .skip_while(|l| !l.starts_with("| field |"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|row| {
            let cells: Vec<&str> = row.trim_matches('|').split(" | ").map(str::trim).collect();
            let unquote = |c: &str| c.trim_matches('`').to_string();
            (unquote(cells[0]), unquote(cells[2]))
        })
        .collect()
}

#[test]
fn every_field_is_documented_with_its_default() {
    let defaults = serde_yaml::to_value(CoreConfig::default()).unwrap();
    let defaults = defaults.as_mapping().unwrap();
    let documented = documented_defaults();
    let mut fields: Vec<String> = defaults
        .keys()
        .map(|k| k.as_str().unwrap().to_string())
        .collect();
    let mut named: Vec<String> = documented.iter().map(|(f, _)| f.clone()).collect();
    fields.sort();
    named.sort();
    assert_eq!(named, fields, "the table's fields against CoreConfig's");
    for (field, default) in &documented {
        let value = match &defaults[field.as_str()] {
            serde_yaml::Value::Number(n) => n.to_string(),
            serde_yaml::Value::String(s) => s.clone(),
            other => panic!("{field}: unexpected {other:?}"),
        };
        assert_eq!(&value, default, "default of `{field}`");
    }
}
