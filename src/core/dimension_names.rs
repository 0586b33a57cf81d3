//! Named dimensions, recorded the way netCDF-4 records them, so that ncdump, netCDF4-python
//! and xarray show the names: HDF5 dimension scales. Dimension `d` of a dataset named `x`
//! is attached to the 1-D dataset `x` in the same group: the user's own (a coordinate
//! variable, whose values label the dimension) when one of that length exists, else one
//! dah5 makes with netCDF's marker for "a dimension, not a variable" and no data. Datasets
//! that name the same dimension share its scale, as netCDF dimensions are shared.

use crate::core::collective::{Agreed, Args, Collective};
use crate::core::dataset::Dataset;
use crate::core::layout::Layout;
use crate::core::names::absolute;
use crate::core::shape::Order;
use crate::dtype::Dtype;
use crate::error::{Error, Result};
use crate::h5;
use crate::h5::attr::Place;
use crate::h5::id::Id;

/// The NAME netCDF-4 gives a scale that is only a dimension (it then pads the length to
/// ten columns after it, which readers ignore; see netCDF-C's `DIM_WITHOUT_VARIABLE`).
pub(crate) const NOT_A_VARIABLE: &str = "This is a netCDF dimension but not a netCDF variable.";

/// `dah5_dataset_set_dim_names`: one name per dimension, in the file handle's order.
pub struct SetDimNames {
    names: Vec<String>,
    /// The names one per line, as the agreement compares them.
    joined: String,
}

impl SetDimNames {
    pub fn new(names: Vec<String>) -> SetDimNames {
        let joined = names.join("\n");
        SetDimNames { names, joined }
    }
}

fn check_name(name: &str) -> Result<()> {
    if name.is_empty() || name == "." || name == ".." || name.contains('/') || name.contains('\n') {
        return Err(Error::invalid(format!(
            "{name:?} is not a dimension name: it must be non-empty, not \".\" or \"..\", \
             without '/' or newlines"
        )));
    }
    Ok(())
}

/// What naming one dimension takes.
enum Scale {
    /// The dataset is 1-D and named like its dimension: it becomes its own scale.
    Itself,
    /// A 1-D dataset of that name and length exists in the group (made a scale if not yet).
    Existing(Id),
    /// Nothing has that name yet: a scale with no data is made.
    New,
}

/// `group/name` for a dataset path and a sibling name.
fn sibling(dataset: &str, name: &str) -> String {
    let path = absolute(dataset);
    let group = &path[..path.rfind('/').unwrap_or(0)];
    format!("{group}/{name}")
}

impl Collective for SetDimNames {
    const NAME: &'static str = "dah5_dataset_set_dim_names";
    type Target = Dataset;
    type Output = ();

    fn check(self, dataset: &Dataset) -> Result<Self> {
        dataset.file.check_writable()?;
        if self.names.len() != dataset.ndims() {
            return Err(Error::invalid(format!(
                "{} names for dataset {:?}, which has {} dims",
                self.names.len(),
                dataset.name(),
                dataset.ndims()
            )));
        }
        self.names.iter().try_for_each(|n| check_name(n))?;
        Ok(self)
    }

    fn args<'a>(&'a self, dataset: &'a Dataset) -> Args<'a> {
        dataset.args(Self::NAME).text("names", self.joined.as_str())
    }

    /// First every check that reads the file (the same on every rank), then the changes:
    /// a name that cannot be given fails the call before anything is changed.
    fn act(self, dataset: &mut Dataset, _: Agreed) -> Result<()> {
        let mut names = self.names;
        if dataset.file.order == Order::Fortran {
            names.reverse();
        }
        let own_path = absolute(dataset.name());
        let mut plan = Vec::new();
        for (d, name) in names.iter().enumerate() {
            plan.push(plan_one(dataset, d, name, &own_path, &names[..d])?);
        }
        for (d, (name, scale)) in names.iter().zip(plan).enumerate() {
            let scale = match scale {
                Scale::Itself => {
                    if !h5::scale::is_scale(&dataset.id)? {
                        h5::scale::set_scale(&dataset.id, name)?;
                    }
                    continue;
                }
                Scale::Existing(id) => id,
                Scale::New => {
                    let path = sibling(dataset.name(), name);
                    // An earlier dimension of this call may have made it already.
                    if h5::group::exists(&dataset.id, &path)? {
                        h5::dataset::open(&dataset.id, &path)?
                    } else {
                        new_scale(dataset, d, &path)?
                    }
                }
            };
            if !h5::scale::is_scale(&scale)? {
                h5::scale::set_scale(&scale, name)?;
            }
            // Not attached yet: `plan_one` refused dimensions that have a scale.
            h5::scale::attach(&dataset.id, &scale, d)?;
            scale.close()?;
        }
        Ok(())
    }
}

/// How dimension `d` of `dataset` gets the name `name` (`earlier`: the names of the
/// dimensions before it), or why it cannot.
fn plan_one(
    dataset: &Dataset,
    d: usize,
    name: &str,
    own_path: &str,
    earlier: &[String],
) -> Result<Scale> {
    let len = dataset.storage_dims[d];
    let path = sibling(dataset.name(), name);
    let refuse = |why: String| {
        Error::invalid(format!(
            "dataset {:?}: dimension {d} (of length {len}) cannot be named {name:?}: {why}",
            dataset.name()
        ))
    };
    if h5::scale::count(&dataset.id, d)? > 0 {
        return Err(refuse(
            "it already has a name (names are given once)".into(),
        ));
    }
    if let Some(e) = earlier.iter().position(|n| n == name)
        && dataset.storage_dims[e] != len
    {
        return Err(refuse(format!(
            "dimension {e}, of another length, has that name"
        )));
    }
    if path == own_path {
        return if dataset.ndims() == 1 {
            Ok(Scale::Itself)
        } else {
            Err(refuse(
                "only a 1-D dataset can name its dimension after itself".into(),
            ))
        };
    }
    if h5::scale::is_scale(&dataset.id)? {
        return Err(refuse("the dataset is a dimension scale itself".into()));
    }
    let file = &dataset.id;
    if !h5::group::exists(file, &path)? {
        return Ok(Scale::New);
    }
    let other = h5::dataset::open(file, &path)
        .map_err(|_| refuse(format!("{path:?} exists and is not a dataset")))?;
    let (dims, _) = h5::space::extents(&h5::dataset::space(&other)?)?;
    if dims != [len] {
        return Err(refuse(format!(
            "{path:?} exists with dims {dims:?}; a dimension's scale is 1-D, of its length"
        )));
    }
    if h5::scale::count(&other, 0)? > 0 {
        return Err(refuse(format!("{path:?} has a dimension scale of its own")));
    }
    Ok(Scale::Existing(other))
}

/// A scale with no data for dimension `d` of `dataset`, marked as netCDF marks a dimension
/// without a variable: float32 as netCDF makes them, extendible (chunked) when the
/// dimension is.
fn new_scale(dataset: &Dataset, d: usize, path: &str) -> Result<Id> {
    let (len, max) = (dataset.storage_dims[d], dataset.max_storage_dims()[d]);
    let layout = if max == len {
        Layout::contiguous()
    } else {
        Layout {
            chunk: Some(vec![len.clamp(1, 1024)]),
            max_dims: Some(vec![max]),
            ..Layout::contiguous()
        }
    };
    let scale = h5::dataset::create(
        &dataset.id,
        path,
        &h5::types::native(Dtype::Float32)?,
        &h5::space::simple_with_max(&[len], &[max])?,
        &h5::plist::link_create()?,
        &h5::plist::dataset_create(&layout, false)?,
    )?;
    h5::scale::set_scale(&scale, &format!("{NOT_A_VARIABLE}{len:10}"))?;
    Ok(scale)
}

/// After `dataset` grew: grow the scales dah5 made for its named dimensions along with it,
/// as netCDF-C grows an unlimited dimension's (a coordinate variable is the user's to grow).
pub(crate) fn follow_extent(dataset: &Dataset) -> Result<()> {
    let named = Place {
        file: &dataset.id,
        object: ".",
        name: "DIMENSION_LIST",
    };
    if !h5::attr::exists(&named, false)? {
        return Ok(());
    }
    for (d, &len) in dataset.storage_dims.iter().enumerate() {
        for path in h5::scale::attached(&dataset.id, d)? {
            let scale = h5::dataset::open(&dataset.id, &path)?;
            let (dims, max) = h5::space::extents(&h5::dataset::space(&scale)?)?;
            if dims[0] < len && max[0] >= len && is_dimension_only(&scale)? {
                h5::dataset::set_extent(&scale, &[len])?;
            }
            scale.close()?;
        }
    }
    Ok(())
}

/// Whether a scale is one dah5 (or netCDF) made for a dimension without values.
pub fn is_dimension_only(scale: &Id) -> Result<bool> {
    let name = h5::attr::text(scale, "NAME")?.unwrap_or_default();
    Ok(name.starts_with(NOT_A_VARIABLE.as_bytes()))
}
