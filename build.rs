//! Tells the code which HDF5 it is built against, from what hdf5-sys (`links = "hdf5"`)
//! says of it: from HDF5 1.12 an object is known by a token, before it by its address;
//! from 1.10.7 two selections can be combined (`H5Scombine_select`).

fn main() {
    println!("cargo::rustc-check-cfg=cfg(hdf5_object_tokens)");
    println!("cargo::rustc-check-cfg=cfg(hdf5_combine_select)");
    if std::env::var_os("DEP_HDF5_VERSION_1_10_7").is_some() {
        println!("cargo::rustc-cfg=hdf5_combine_select");
    }
    if std::env::var_os("DEP_HDF5_VERSION_1_12_0").is_some() {
        println!("cargo::rustc-cfg=hdf5_object_tokens");
    }
}
