//! Every schema of the OpenAPI document has one type behind it: two types deriving
//! `ToSchema` under one name would let the document describe one with the other's fields
//! (the generator keeps whichever it met last, silently).

use std::collections::BTreeMap;
use std::path::Path;

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap_or_else(|e| panic!("{e}")).path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_two_schema_types_share_a_name() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut names: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{e}"));
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            if !(line.contains("derive(") && line.contains("ToSchema")) {
                continue;
            }
            // The type the derive is on (the first struct or enum after it), or the name
            // a `#[schema(as = …)]` gives it.
            let mut name = None;
            for next in lines.iter().skip(i + 1).take(8) {
                let t = next.trim();
                if let Some(rest) = t.strip_prefix("#[schema(as = ") {
                    name = rest.split([')', ',']).next().map(str::to_owned);
                }
                let decl = t
                    .strip_prefix("pub struct ")
                    .or_else(|| t.strip_prefix("pub enum "))
                    .or_else(|| t.strip_prefix("struct "))
                    .or_else(|| t.strip_prefix("enum "));
                if let Some(decl) = decl {
                    let ty: String = decl
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    names.entry(name.unwrap_or(ty)).or_default().push(format!(
                        "{}:{}",
                        file.display(),
                        i + 1
                    ));
                    break;
                }
            }
        }
    }
    let twice: Vec<_> = names.iter().filter(|(_, at)| at.len() > 1).collect();
    assert!(
        twice.is_empty(),
        "schema names used by more than one type: {twice:?}"
    );
    assert!(
        names.len() > 100,
        "the scan found {} schemas: is it still reading the derives?",
        names.len()
    );
}
