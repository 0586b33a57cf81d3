//! `dah5_dataset_extend`: a dataset grows, and its dimension scales (`core::dimension_names`)
//! with it.

use crate::core::collective::{Agreed, Args, Collective};
use crate::core::dataset::Dataset;
use crate::core::dimension_names;
use crate::core::layout::UNLIMITED;
use crate::error::{Error, ErrorKind, Result};
use crate::h5;

/// `dah5_dataset_extend`: grow the dims to `new_dims` (in the file handle's order), each at
/// least the current and at most the maximum. New elements read as zeros until written.
pub struct Extend(pub Vec<u64>);

impl Collective for Extend {
    const NAME: &'static str = "dah5_dataset_extend";
    type Target = Dataset;
    /// The new dims, in the file handle's order.
    type Output = Vec<u64>;

    fn check(self, dataset: &Dataset) -> Result<Self> {
        let dims = self.0;
        dataset.file.check_writable()?;
        if dims.len() != dataset.ndims() {
            return Err(Error::invalid(format!(
                "new_dims has {} entries but dataset {:?} has {} dims",
                dims.len(),
                dataset.name(),
                dataset.ndims()
            )));
        }
        // Shrinking would discard the elements beyond the new dims without a word (HDF5
        // allows it; h5py's resize does it): refused, the function only grows.
        let current = dataset.dims();
        if let Some(d) = (0..dims.len()).find(|&d| dims[d] < current[d]) {
            return Err(Error::invalid(format!(
                "new_dims[{d}] = {} is less than the current {} of dataset {:?} (dims \
                 {current:?}): dah5_dataset_extend only grows a dataset, it never \
                 discards data",
                dims[d],
                current[d],
                dataset.name()
            )));
        }
        let max = dataset.max_dims();
        for (d, (&n, &m)) in dims.iter().zip(&max).enumerate() {
            if n > m {
                let limit = if m == UNLIMITED {
                    "unlimited".to_string()
                } else {
                    m.to_string()
                };
                return Err(Error::new(
                    ErrorKind::OutOfBounds,
                    format!(
                        "new_dims[{d}] = {n} exceeds the maximum {limit} of dataset {:?} \
                         (max dims {max:?}; only datasets created with max_dims grow)",
                        dataset.name()
                    ),
                ));
            }
        }
        Ok(Extend(dims))
    }

    fn args<'a>(&'a self, dataset: &'a Dataset) -> Args<'a> {
        dataset.args(Self::NAME).numbers("new_dims", &self.0)
    }

    fn act(self, dataset: &mut Dataset, _: Agreed) -> Result<Vec<u64>> {
        let storage = dataset.file.order.to_storage(&self.0);
        let context = |e: Error, name: &str| e.context(format_args!("dataset {name:?}"));
        h5::dataset::set_extent(&dataset.id, &storage).map_err(|e| context(e, dataset.name()))?;
        dataset.storage_dims = storage.into();
        dimension_names::follow_extent(dataset).map_err(|e| context(e, dataset.name()))?;
        Ok(dataset.dims())
    }
}
