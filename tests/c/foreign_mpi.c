/*
 * foreign_mpi.c: a program that initializes one MPI library (MPICH) and calls dah5, which
 * is linked to another (Open MPI): what Julia does with MPICH_jll and an Open MPI build of
 * dah5. Both are loaded with dlopen, so that each keeps its own symbols. dah5 must return
 * DAH5_ERR_ABI_MISMATCH naming both libraries, not crash or claim MPI is not running.
 *
 *   foreign_mpi LIBMPICH LIBDAH5
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef int (*mpi_init_fn)(int *, char ***);
typedef int (*mpi_finalize_fn)(void);
typedef int32_t (*create_fn)(int32_t, const char *, uint32_t, void **);
typedef const char *(*message_fn)(void);

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    void *mpich = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    void *dah5 = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
    if (!mpich || !dah5) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 2;
    }
    mpi_init_fn init = (mpi_init_fn)dlsym(mpich, "MPI_Init");
    mpi_finalize_fn finalize = (mpi_finalize_fn)dlsym(mpich, "MPI_Finalize");
    create_fn create = (create_fn)dlsym(dah5, "dah5_file_create");
    message_fn message = (message_fn)dlsym(dah5, "dah5_last_error_message");
    if (!init || !finalize || !create || !message || init(NULL, NULL) != 0) {
        fprintf(stderr, "symbols or MPI_Init failed\n");
        return 2;
    }
    void *file = NULL;
    int32_t status = create(0, "foreign.h5", 4, &file);
    const char *text = message();
    printf("status %d: %s\n", status, text);
    int ok = status == -18 && strstr(text, "MPICH") && strstr(text, "Open MPI") && file == NULL;
    finalize();
    return ok ? 0 : 1;
}
