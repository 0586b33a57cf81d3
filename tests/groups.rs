//! `dah5_group_create` end to end: tests/c/groups.c at 2 and 3 ranks asserts each status
//! and message on every rank (nested groups with their parents, paths that exist, bad paths,
//! ranks out of step, a read-only file, the checks off); then h5py and h5dump read the
//! file, and `dah5 merge` copies its groups, the empty ones and their attributes too; a
//! circle of groups (hard links) ends `dah5 info` and `dah5 merge` as any file does.

mod common;

use std::path::PathBuf;

use common::*;

/// What h5py must find in a file groups.c wrote (or its merge): every group made, with its
/// attributes, and nothing that a refused call would have made.
const CHECK: &str = "import h5py, sys\n\
    f = h5py.File(sys.argv[1], 'r')\n\
    groups = []\n\
    f.visit(lambda name: groups.append(name) if isinstance(f[name], h5py.Group) else None)\n\
    want = ['a', 'a/b', 'a/b/c', 'a/b/d', 'lone', 'unchecked', 'unchecked/g', '\u{3c0}', '\u{3c0}/\u{fc}']\n\
    assert sorted(groups) == sorted(want), groups\n\
    for empty in ['a/b/c', 'a/b/d', 'lone', 'unchecked/g', '\u{3c0}/\u{fc}']:\n\
    \x20   assert len(f[empty]) == 0, (empty, list(f[empty]))\n\
    assert isinstance(f['a/x'], h5py.Dataset) and f['a/x'].dtype == 'int32'\n\
    assert dict(f['lone'].attrs) == {'note': 'empty'}, dict(f['lone'].attrs)\n\
    assert dict(f['a/b'].attrs) == {'level': 'two'}, dict(f['a/b'].attrs)\n\
    for never in ['r0', 'r1', 'one', 'g', 'ro', 'dah5_blocks', 'a/x/y']:\n\
    \x20   assert never not in f, never\n\
    print('groups match')\n";

fn check(dir: &std::path::Path, file: &str) {
    let out = python_inline(
        &format!("import sys; sys.argv = ['', '{file}']\n{CHECK}"),
        dir,
    );
    assert!(out.contains("groups match"), "{out}");
    let header = h5dump_header(dir, file);
    for group in [
        "GROUP \"a\"",
        "GROUP \"b\"",
        "GROUP \"c\"",
        "GROUP \"lone\"",
    ] {
        assert!(header.contains(group), "{group}:\n{header}");
    }
}

#[test]
fn group_create_makes_parents_and_refuses_existing_and_bad_paths_on_every_rank() {
    let exe = build_c(&["tests/c/groups.c"], "groups");
    for ranks in [2, 3] {
        let dir = scratch(&format!("groups_{ranks}"));
        let out = mpiexec_ok(ranks, &exe, &["."], &[], &dir);
        assert!(out.contains(" 0 failures over"), "{out}");
        check(&dir, "groups.h5");
    }
}

#[test]
fn dah5_merge_copies_empty_groups_and_every_groups_attributes() {
    let exe = build_c(&["tests/c/groups.c"], "groups");
    let dir = scratch("groups_merge");
    mpiexec_ok(2, &exe, &["."], &[], &dir);
    let dah5 = PathBuf::from(env!("CARGO_BIN_EXE_dah5"));
    let out = mpiexec_ok(2, &dah5, &["merge", "groups.h5", "m.h5"], &[], &dir);
    assert!(out.contains("dah5 merge: 1 dataset(s)"), "{out}");
    check(&dir, "m.h5");
}

/// A hard link can close a circle of groups (h5py: `f['a/b/up'] = f['a']`): `dah5 info` and
/// `dah5 merge` leave out a link back to a group they are inside of, and end (they walked
/// the circle for ever); each dataset is listed and copied once.
#[test]
fn info_and_merge_end_on_a_circle_of_groups() {
    let dir = scratch("groups_circle");
    let made = python_inline(
        "import h5py, numpy as np\n\
         with h5py.File('circle.h5', 'w') as f:\n\
         \x20   f['a/x'] = np.arange(4.0)\n\
         \x20   f['a/b/up'] = f['a']\n\
         \x20   f['a/b/root'] = f['/']\n\
         print('made')\n",
        &dir,
    );
    assert!(made.contains("made"), "{made}");
    let dah5 = PathBuf::from(env!("CARGO_BIN_EXE_dah5"));
    let info = local_ok(&dah5, &["info", "circle.h5"], &dir);
    assert!(
        info.contains("circle.h5: 1 dataset(s)") && info.contains("/a/x:"),
        "{info}"
    );
    let out = mpiexec_ok(2, &dah5, &["merge", "circle.h5", "m.h5"], &[], &dir);
    assert!(out.contains("dah5 merge: 1 dataset(s)"), "{out}");
    let copied = python_inline(
        "import h5py\n\
         names = []\n\
         h5py.File('m.h5', 'r').visit(names.append)\n\
         assert sorted(names) == ['a', 'a/b', 'a/x'], names\n\
         print('copied')\n",
        &dir,
    );
    assert!(copied.contains("copied"), "{copied}");
}
