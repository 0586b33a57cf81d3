/*
 * abi_linked.c: a program built with one MPI's mpicc and linked against a dah5 built with
 * the other MPI (an MPICH program against the Open MPI build, or the reverse). The loader
 * then sends every MPI call of dah5 and HDF5 to the program's MPI, whose handles dah5's
 * compiled-in constants do not match. Every dah5 function must return
 * DAH5_ERR_ABI_MISMATCH naming both MPIs, without touching HDF5 or MPI (which would crash),
 * and the program must end cleanly.
 *
 *   mpiexec -n N abi_linked DIR
 * Each rank prints one line per call; exit 0 when every call gave the mismatch.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "dah5_mpi.h"

static int failures;

static void expect_mismatch(int rank, const char *what, int32_t status, const void *out)
{
    const char *message = dah5_last_error_message();
    int named = strstr(message, "MPICH") && strstr(message, "Open MPI");
    printf("rank %d: %s: %s%s\n", rank, what, dah5_status_name(status),
           named ? " naming both MPIs" : "");
    if (status != DAH5_ERR_ABI_MISMATCH || !named || out != NULL) {
        printf("rank %d: FAIL %s: %s\n", rank, what, message);
        failures++;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc != 2)
        MPI_Abort(MPI_COMM_WORLD, 2);
    char path[4096];
    snprintf(path, sizeof path, "%s/abi.h5", argv[1]);

    dah5_file *file = NULL;
    expect_mismatch(rank, "dah5_file_create", dah5_file_create_comm(MPI_COMM_WORLD, path, DAH5_TRUNC, &file), file);
    expect_mismatch(rank, "dah5_file_open", dah5_file_open_comm(MPI_COMM_WORLD, path, DAH5_RDONLY, &file), file);
    uint64_t dims[1] = {4};
    expect_mismatch(rank, "dah5_direct_create",
                    dah5_direct_create(path, "x", DAH5_FLOAT64, 1, dims, 0, 0, NULL, NULL), NULL);
    dah5_direct *direct = NULL;
    expect_mismatch(rank, "dah5_direct_open", dah5_direct_open(path, "x", 0, &direct), direct);
    if (rank == 0)
        printf("version: %s\n", dah5_version_string());
    if (rank == 0)
        printf("message: %s\n", dah5_last_error_message());
    MPI_Finalize();
    return failures ? 1 : 0;
}
