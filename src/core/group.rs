//! Groups: `dah5_group_create`, a group made on its own (a dataset's create makes the
//! groups above it; an empty group, to hold attributes or what a later run writes, needs
//! this call).

use crate::core::collective::{Agreed, Args, Collective};
use crate::core::file::File;
use crate::core::names::{self, Wanted};
use crate::error::Result;
use crate::h5;

/// `dah5_group_create`: the group at a path from the root, and any missing group above
/// it. A path that exists (a group, a dataset) is `AlreadyExists`, on every rank.
pub struct CreateGroup<'a>(pub &'a str);

impl Collective for CreateGroup<'_> {
    const NAME: &'static str = "dah5_group_create";
    type Target = File;
    type Output = ();

    fn check(self, file: &File) -> Result<Self> {
        file.shared.check_writable()?;
        names::check_new_group(self.0)?;
        file.claim_room(|| format!("group {:?}", self.0), 0, 0)?;
        Ok(self)
    }

    fn args<'a>(&'a self, file: &'a File) -> Args<'a> {
        file.args(Self::NAME).text("path", self.0)
    }

    fn act(self, file: &mut File, _: Agreed) -> Result<()> {
        // HDF5 fails alike on every rank when the path exists (or runs through a dataset),
        // and every rank walks the path alike to say which.
        h5::group::create(&file.id, self.0, &file.lists.lcpl).map_err(|e| {
            let e = e.context(format_args!("group {:?}", self.0));
            let e = names::explain(&file.id, self.0, Wanted::NewGroup, false, e);
            file.shared.metadata_failure(e)
        })
    }
}
