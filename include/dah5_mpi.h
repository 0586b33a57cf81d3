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

/** dah5_file_create on an MPI_Comm. **Collective** over `comm`. */
static inline int32_t dah5_file_create_comm(MPI_Comm comm, const char *path, uint32_t flags,
                                            dah5_file **file_out)
{
    return dah5_file_create((int32_t)MPI_Comm_c2f(comm), path, flags, file_out);
}

/** dah5_file_create_with on an MPI_Comm. **Collective** over `comm`. */
static inline int32_t dah5_file_create_with_comm(MPI_Comm comm, const char *path,
                                                 uint32_t flags,
                                                 const dah5_file_options *options,
                                                 dah5_file **file_out)
{
    return dah5_file_create_with((int32_t)MPI_Comm_c2f(comm), path, flags, options, file_out);
}

/** dah5_file_open on an MPI_Comm. **Collective** over `comm`. */
static inline int32_t dah5_file_open_comm(MPI_Comm comm, const char *path, uint32_t flags,
                                          dah5_file **file_out)
{
    return dah5_file_open((int32_t)MPI_Comm_c2f(comm), path, flags, file_out);
}

/** dah5_file_open_with on an MPI_Comm. **Collective** over `comm`. */
static inline int32_t dah5_file_open_with_comm(MPI_Comm comm, const char *path, uint32_t flags,
                                               const dah5_file_options *options,
                                               dah5_file **file_out)
{
    return dah5_file_open_with((int32_t)MPI_Comm_c2f(comm), path, flags, options, file_out);
}

#ifdef __cplusplus
}
#endif

#endif /* DAH5_MPI_H */
