//! The `dah5` command.
//!
//!     dah5 info [--blocks] FILE [DATASET]
//!
//! prints what FILE holds, as dah5 sees it (see `dah5::info_command`).
//!
//!     mpiexec -n N dah5 merge IN OUT
//!
//! copies IN (subfiled darrays included) into the new single file OUT (see `dah5::merge`).
//! Each exits 1 with the reason when it fails, 2 on a usage error.

use std::process::ExitCode;

use dah5::info_command::{Request, describe};

const USAGE: &str = "usage: dah5 info [--blocks] FILE [DATASET]\n\
    \x20 datasets, dims in C and in the writer's order, dtype, chunks and filters, dimension\n\
    \x20 names, and each darray's recorded decomposition (--blocks: every block)\n\
    usage: mpiexec -n N dah5 merge IN OUT\n\
    \x20 IN (subfiled darrays included) as one ordinary file OUT, contiguous, with the same\n\
    \x20 attributes, dimension names and block tables; each rank copies a part";

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("info") => info(args.split_off(1)),
        Some("merge") if args.len() == 3 && !args[1..].iter().any(|a| a.starts_with('-')) => {
            merge(&args[1], &args[2])
        }
        _ => {
            eprintln!("{USAGE}");
            ExitCode::from(2)
        }
    }
}

fn merge(input: &str, output: &str) -> ExitCode {
    match dah5::merge::run(input, output) {
        Ok(merged) => {
            if merged.rank == 0 {
                println!(
                    "dah5 merge: {} dataset(s), {} bytes, {input} -> {output} on {} rank(s)",
                    merged.datasets, merged.bytes, merged.ranks
                );
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("dah5 merge: {}", e.message);
            ExitCode::from(1)
        }
    }
}

fn info(mut args: Vec<String>) -> ExitCode {
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
