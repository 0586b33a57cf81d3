//! `dah5 info`: what a file holds, as dah5 sees it. For every dataset: its dims in C order
//! and in the order it was written in, dtype, layout and filters, dimension names, and for a
//! darray its recorded decomposition (a summary; each block on request) and whether the
//! array is complete; what `bpls -D` is to ADIOS2 users. Reads schema 1 and 2 block tables.
//! One process, no MPI.

#![deny(unsafe_code)]

use std::fmt::Write;

use crate::core::block_table::Recorded;
use crate::core::dimension_names::is_dimension_only;
use crate::core::names::TABLES_GROUP;
use crate::core::names::absolute;
use crate::core::shape::{Order, element_count};
use crate::core::subfiles::Subfiles;
use crate::error::{Error, Result};
use crate::file_name;
use crate::h5;
use crate::h5::id::Id;

/// What `dah5 info` was asked.
pub struct Request {
    pub path: String,
    /// One dataset, or every dataset in the file.
    pub dataset: Option<String>,
    /// List every block of a darray, not only the summary.
    pub blocks: bool,
}

/// The description `dah5 info` prints.
pub fn describe(request: &Request) -> Result<String> {
    let fapl = h5::plist::serial_file_access(true)?;
    let file = h5::file::open(file_name::os_path(&request.path), false, &fapl)
        .map_err(|e| e.context(format_args!("path {:?}", request.path)))?;
    let datasets = match &request.dataset {
        Some(name) => vec![absolute(name)],
        None => h5::group::contents(&file, "/", TABLES_GROUP)?.datasets,
    };
    let mut out = format!("{}: {} dataset(s)\n", request.path, datasets.len());
    for path in &datasets {
        describe_dataset(&file, &request.path, path, request.blocks, &mut out)
            .map_err(|e| e.context(format_args!("dataset {path:?}")))?;
    }
    file.close()?;
    Ok(out)
}

fn tuple(values: &[u64]) -> String {
    let shown: Vec<String> = values
        .iter()
        .map(|&v| {
            if v == u64::MAX {
                "unlimited".to_string()
            } else {
                v.to_string()
            }
        })
        .collect();
    format!("({})", shown.join(", "))
}

/// One dataset of the file `main` (its path, for a subfiled darray's subfiles).
fn describe_dataset(
    file: &Id,
    main: &str,
    path: &str,
    blocks: bool,
    out: &mut String,
) -> Result<()> {
    let id = h5::dataset::open(file, path)?;
    let (dims, max_dims) = h5::space::extents(&h5::dataset::space(&id)?)?;
    let file_type = h5::dataset::file_type(&id)?;
    let dtype = h5::types::dtype_of(file_type.raw()).map_or_else(
        |_| "a type dah5 does not read".to_string(),
        |d| d.name().trim_start_matches("DAH5_").to_lowercase(),
    );
    let dcpl = h5::dataset::create_plist(&id)?;
    let mut layout = match h5::plist::chunk(&dcpl)? {
        Some(chunk) => format!("chunked {}", tuple(&chunk)),
        None => "not chunked".to_string(),
    };
    let filters = h5::plist::filter_names(&dcpl)?;
    if !filters.is_empty() {
        write!(layout, ", filters: {}", filters.join(", ")).ok();
    }
    writeln!(out, "\n{path}: {dtype}, {layout}").ok();
    let grows = if max_dims != dims {
        format!(", max {}", tuple(&max_dims))
    } else {
        String::new()
    };
    writeln!(out, "  dims (C order): {}{grows}", tuple(&dims)).ok();
    let writer = match h5::attr::text(&id, "dah5_writer_order")?.as_deref() {
        Some(b"F") => Some(Order::Fortran),
        Some(b"C") => Some(Order::C),
        _ => None,
    };
    if writer == Some(Order::Fortran) {
        let reversed = Order::Fortran.to_storage(&dims);
        writeln!(out, "  dims (F order, as written): {}", tuple(&reversed)).ok();
    }
    if is_dimension_only(&id)? {
        writeln!(
            out,
            "  a dimension only (no values): netCDF shows it as a dimension"
        )
        .ok();
    } else if h5::scale::is_scale(&id)? {
        writeln!(out, "  a coordinate variable: the values of its dimension").ok();
    }
    let names = (0..dims.len())
        .map(|d| {
            let attached = h5::scale::attached(&id, d)?;
            Ok(attached
                .first()
                .map(|p| p.rsplit('/').next().unwrap_or(p).to_string()))
        })
        .collect::<Result<Vec<Option<String>>>>()?;
    if names.iter().any(Option::is_some) {
        let shown: Vec<&str> = names.iter().map(|n| n.as_deref().unwrap_or("-")).collect();
        writeln!(out, "  dimension names (C order): ({})", shown.join(", ")).ok();
    }
    if let Some(recorded) = Recorded::read(&id, &dims)? {
        describe_darray(
            &id,
            &dims,
            &recorded,
            writer.unwrap_or(Order::C),
            blocks,
            out,
        )?;
        if let Some(subfiles) = Subfiles::read(&id, main)? {
            let table = recorded.table(&id, &dims)?;
            let survey = subfiles.survey(table)?;
            let mut state = Vec::new();
            if !survey.missing.is_empty() {
                state.push(format!(
                    "MISSING: blocks {:?} (HDF5 readers show fill values there)",
                    survey.missing
                ));
            }
            if !survey.foreign.is_empty() {
                state.push(format!(
                    "NOT OF THIS FILE: blocks {:?} (subfiles of another write of the darray \
                     in their place: dah5 refuses to read them, HDF5 readers show their values)",
                    survey.foreign
                ));
            }
            if state.is_empty() {
                state.push("all present".to_string());
            }
            if !subfiles.tied() {
                state.push(format!(
                    "not tied to this file (written without {}, by an earlier dah5: a \
                     subfile of another write cannot be told)",
                    crate::core::subfiles::ID_ATTR
                ));
            }
            writeln!(
                out,
                "  subfiled: {} files {} beside the main file, {}",
                survey.files,
                subfiles.pattern(),
                state.join("; ")
            )
            .ok();
        }
    }
    id.close()
}

fn describe_darray(
    id: &Id,
    dims: &[u64],
    recorded: &Recorded,
    writer: Order,
    blocks: bool,
    out: &mut String,
) -> Result<()> {
    let table = recorded.table(id, dims)?;
    let written = table.counts.iter().filter(|c| !c.contains(&0)).count();
    let total = element_count(dims).ok_or_else(|| Error::invalid("dims overflow"))?;
    writeln!(
        out,
        "  darray: block table schema {}, {} blocks ({} empty), written in {} order",
        recorded.schema,
        recorded.nblocks,
        recorded.nblocks as usize - written,
        writer.letter()
    )
    .ok();
    let state = if recorded.complete {
        "complete: every element was written".to_string()
    } else if table.covered() == total {
        "incomplete: not every writer finished (dah5_complete = 0)".to_string()
    } else {
        format!(
            "partial: the blocks hold {} of the {total} elements",
            table.covered()
        )
    };
    writeln!(
        out,
        "  {state}; largest block {}",
        table.largest_block().map_or("none".into(), |b| tuple(&b))
    )
    .ok();
    if blocks {
        writeln!(
            out,
            "  blocks (rank: offset count, in {} order):",
            writer.letter()
        )
        .ok();
        for (row, (offset, count)) in table.offsets.iter().zip(&table.counts).enumerate() {
            let (offset, count) = (writer.to_storage(offset), writer.to_storage(count));
            let rank = table.rank_of(row);
            writeln!(out, "    {rank}: {} {}", tuple(&offset), tuple(&count)).ok();
        }
    }
    Ok(())
}
