//! The `dah5` command.
//!
//!     dah5 info [--blocks] FILE [DATASET]
//!
//! prints what FILE holds, as dah5 sees it (see `dah5::inspect`). Exits 1 with the reason
//! when the file or dataset cannot be read, 2 on a usage error.

use std::process::ExitCode;

use dah5::inspect::{Request, describe};

const USAGE: &str = "usage: dah5 info [--blocks] FILE [DATASET]\n\
    \x20 datasets, dims in C and in the writer's order, dtype, chunks and filters, dimension\n\
    \x20 names, and each darray's recorded decomposition (--blocks: every block)";

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) != Some("info") {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    }
    args.remove(0);
    let blocks = args.iter().any(|a| a == "--blocks");
    args.retain(|a| a != "--blocks");
    if args.is_empty() || args.len() > 2 || args.iter().any(|a| a.starts_with('-')) {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    }
    let request = Request {
        path: args[0].clone(),
        dataset: args.get(1).cloned(),
        blocks,
    };
    match describe(&request) {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("dah5 info: {}", e.message);
            ExitCode::from(1)
        }
    }
}
