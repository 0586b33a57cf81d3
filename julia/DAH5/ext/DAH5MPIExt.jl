# With MPI.jl loaded, DAH5 takes `MPI.Comm`s: they cross to libdah5 as Fortran handles.
module DAH5MPIExt

using DAH5
using MPI

DAH5.fortran_handle(comm::MPI.Comm) = Int32(MPI.API.MPI_Comm_c2f(comm))

end
