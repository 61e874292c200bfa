//! Build script: find which MPI `MPICC` names, compile the C shim with it, expose
//! the flavour as `cfg(fastred_mpi = "mpich" | "openmpi" | "smpi")`, and regenerate
//! `include/fastred.h` with cbindgen.
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=MPICC");
    println!("cargo:rerun-if-changed=csrc/shim.c");
    println!("cargo:rerun-if-changed=src/capi.rs");
    println!("cargo:rerun-if-changed=cbindgen.toml");
    println!("cargo::rustc-check-cfg=cfg(fastred_mpi, values(\"mpich\", \"openmpi\", \"smpi\"))");

    let mpicc = std::env::var("MPICC").unwrap_or_else(|_| "mpicc".to_string());
    let show = Command::new(&mpicc)
        .arg("-show")
        .output()
        .unwrap_or_else(|e| panic!("cannot run `{mpicc} -show` ({e}); set MPICC=mpicc.mpich or mpicc.openmpi"));
    let show = String::from_utf8_lossy(&show.stdout).to_string();
    // SimGrid's smpicc: `-lsimgrid`, headers in include/smpi.
    let flavour = if show.contains("simgrid") || show.contains("/smpi") {
        "smpi"
    } else if show.contains("mpich") {
        "mpich"
    } else if show.contains("openmpi") || show.contains("-lmpi") {
        "openmpi"
    } else {
        panic!("`{mpicc} -show` names neither MPICH, Open MPI nor SimGrid SMPI: {show}");
    };
    println!("cargo:rustc-cfg=fastred_mpi=\"{flavour}\"");
    println!("cargo:rustc-env=FASTRED_MPI_FLAVOUR={flavour}");

    cc::Build::new()
        .compiler(&mpicc)
        .file("csrc/shim.c")
        .flag("-O3")
        .flag_if_supported("-Wno-unused-parameter")
        .compile("fastred_shim");

    let crate_dir = std::env::var("CARGO_MANIFEST_DIR").unwrap();
    // Parse only src/capi.rs: the intercepted MPI functions are declared by mpi.h.
    let config = cbindgen::Config::from_file(format!("{crate_dir}/cbindgen.toml")).unwrap_or_default();
    let generated = cbindgen::Builder::new()
        .with_config(config)
        .with_src(format!("{crate_dir}/src/capi.rs"))
        .generate();
    if let Ok(bindings) = generated {
        bindings.write_to_file(format!("{crate_dir}/include/fastred.h"));
    } else {
        println!("cargo:warning=cbindgen could not generate include/fastred.h");
    }
}
