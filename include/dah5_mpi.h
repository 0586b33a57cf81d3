/*
 * dah5_mpi.h: the file functions of dah5.h taking an MPI_Comm, for C and C++ programs
 * built with the MPI compiler wrappers (mpicc, mpicxx).
 *
 * dah5.h itself does not include mpi.h: communicators cross the ABI as Fortran handles
 * (MPI_Fint), so that Fortran and Julia can call the same functions. These wrappers only
 * convert with MPI_Comm_c2f. Hand-written, not generated.
 */
#ifndef DAH5_MPI_H
#define DAH5_MPI_H

#include <mpi.h>

#include "dah5.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The Fortran handle of `comm` for dah5's functions. Outside MPI_Init .. MPI_Finalize,
 * MPI_Comm_c2f may not be called (Open MPI aborts the program): then 0 is passed, and
 * dah5 returns DAH5_ERR_MPI_NOT_INITIALIZED before it looks at the handle.
 *
 * Local.
 */
static inline int32_t dah5_comm_handle(MPI_Comm comm)
{
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    return initialized && !finalized ? (int32_t)MPI_Comm_c2f(comm) : 0;
}

/** dah5_file_create on an MPI_Comm. **Collective** over `comm`. */
static inline int32_t dah5_file_create_comm(MPI_Comm comm, const char *path, uint32_t flags,
                                            dah5_file **file_out)
{
    return dah5_file_create(dah5_comm_handle(comm), path, flags, file_out);
}

/** dah5_file_create_with on an MPI_Comm. **Collective** over `comm`. */
static inline int32_t dah5_file_create_with_comm(MPI_Comm comm, const char *path,
                                                 uint32_t flags,
                                                 const dah5_file_options *options,
                                                 dah5_file **file_out)
{
    return dah5_file_create_with(dah5_comm_handle(comm), path, flags, options, file_out);
}

/** dah5_file_open on an MPI_Comm. **Collective** over `comm`. */
static inline int32_t dah5_file_open_comm(MPI_Comm comm, const char *path, uint32_t flags,
                                          dah5_file **file_out)
{
    return dah5_file_open(dah5_comm_handle(comm), path, flags, file_out);
}

/** dah5_file_open_with on an MPI_Comm. **Collective** over `comm`. */
static inline int32_t dah5_file_open_with_comm(MPI_Comm comm, const char *path, uint32_t flags,
                                               const dah5_file_options *options,
                                               dah5_file **file_out)
{
    return dah5_file_open_with(dah5_comm_handle(comm), path, flags, options, file_out);
}

#ifdef __cplusplus
}
#endif

#endif /* DAH5_MPI_H */
