/*
 * no_room.c: dah5_file_create where the file system has not one free block (a tmpfs
 * tests/bad_input.rs mounts and fills): DAH5_ERR_NO_SPACE on every rank at once, and no
 * file left behind. (Before, HDF5's create and flush failed there on some ranks only, and
 * the close that followed hung.)
 *
 *   mpiexec -n 2 ./no_room DIR/new.h5
 */
#include <stdio.h>

#include <mpi.h>

#include "dah5_mpi.h"
#include "steps.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    char text[128];
    dah5_file *file = NULL;
    int32_t status = dah5_file_create_comm(MPI_COMM_WORLD, argv[1], DAH5_TRUNC, &file);
    snprintf(text, sizeof text, "create %s", dah5_status_name(status));
    append_step(text);
    if (status == DAH5_OK) {
        snprintf(text, sizeof text, "close %s", dah5_status_name(dah5_file_close(&file)));
        append_step(text);
    }
    print_every_rank_line();
    MPI_Finalize();
    return 0;
}
