//! Tells the code which HDF5 it is built against, from what hdf5-sys (`links = "hdf5"`)
//! says of it: from HDF5 1.12 an object is known by a token, before it by its address.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(hdf5_object_tokens)");
    if std::env::var_os("DEP_HDF5_VERSION_1_12_0").is_some() {
        println!("cargo::rustc-cfg=hdf5_object_tokens");
    }
}
