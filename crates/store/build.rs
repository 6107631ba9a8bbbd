//! Embeds the SQL migrations: for each backend, a list of `(version, description, sql)`
//! read from `migrations/<backend>/NNNN_description.sql`, so a migration is added by adding
//! its file.

use std::fmt::Write as _;
use std::path::Path;
use std::{env, fs};

fn main() {
    let out = env::var("OUT_DIR").unwrap_or_else(|e| panic!("OUT_DIR: {e}"));
    for backend in ["sqlite", "postgres"] {
        let dir = Path::new("migrations").join(backend);
        println!("cargo::rerun-if-changed={}", dir.display());
        let mut files: Vec<_> = fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|entry| {
                entry
                    .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
                    .path()
            })
            .filter(|path| path.extension().is_some_and(|ext| ext == "sql"))
            .collect();
        files.sort();
        let mut list = String::from("&[\n");
        for path in files {
            let stem = path
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_else(|| panic!("{}: name is not UTF-8", path.display()));
            let (version, description) = stem
                .split_once('_')
                .unwrap_or_else(|| panic!("{stem}: name it NNNN_description.sql"));
            let version: i64 = version
                .parse()
                .unwrap_or_else(|e| panic!("{stem}: version is not a number: {e}"));
            let absolute =
                fs::canonicalize(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let _ = writeln!(
                list,
                "    ({version}, {:?}, include_str!({:?})),",
                description.replace('_', " "),
                absolute.display().to_string()
            );
        }
        list.push(']');
        let target = Path::new(&out).join(format!("migrations_{backend}.rs"));
        fs::write(&target, list).unwrap_or_else(|e| panic!("{}: {e}", target.display()));
    }
}
