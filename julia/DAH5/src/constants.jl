# The #defines of include/dah5.h, same names and values (tests/abi checks them).

const DAH5_VERSION_MAJOR = Int32(0)
const DAH5_VERSION_MINOR = Int32(1)
const DAH5_VERSION_PATCH = Int32(0)
const DAH5_VERSION_NUMBER = Int32(100)

# File flags.
const DAH5_RDONLY = UInt32(1)
const DAH5_RDWR = UInt32(2)
const DAH5_TRUNC = UInt32(4)
const DAH5_ORDER_F = UInt32(16)

# Transfer flags.
const DAH5_INDEPENDENT = UInt32(0)
const DAH5_COLLECTIVE = UInt32(1)
const DAH5_CONVERT = UInt32(2)
# Write behind the caller (dah5_write_block[s]): `write_block(...; async = true)`.
const DAH5_ASYNC = UInt32(4)

# Dataset option flags, and the unlimited max dim.
const DAH5_FILL_ZEROS = UInt32(1)
const DAH5_SHUFFLE = UInt32(2)
const DAH5_UNLIMITED = typemax(UInt64)

# dah5_darray_write flag; file option flag.
const DAH5_DARRAY_PARTIAL = UInt32(256)
# dah5_darray_write and dah5_darray_create flag: each node's blocks in a file of its own.
const DAH5_DARRAY_SUBFILED = UInt32(512)
const DAH5_ATOMIC = UInt32(1)
const DAH5_NO_CHECKS = UInt32(128)

# dah5_direct_open flag: an advisory fcntl lock around each write.
const DAH5_DIRECT_LOCK = UInt32(32)
# dah5_direct_create/open flag: HDF5 does not flock the file (file systems without flock).
const DAH5_NO_FILE_LOCKING = UInt32(64)

# Element types.
const DAH5_INT8 = Int32(1)
const DAH5_INT16 = Int32(2)
const DAH5_INT32 = Int32(3)
const DAH5_INT64 = Int32(4)
const DAH5_UINT8 = Int32(5)
const DAH5_UINT16 = Int32(6)
const DAH5_UINT32 = Int32(7)
const DAH5_UINT64 = Int32(8)
const DAH5_FLOAT32 = Int32(9)
const DAH5_FLOAT64 = Int32(10)
const DAH5_COMPLEX64 = Int32(11)
const DAH5_COMPLEX128 = Int32(12)
const DAH5_STRING = Int32(13)

const DAH5_MAX_NDIMS = 32
const DAH5_FILE_OPTIONS_VERSION = UInt32(2)
const DAH5_DATASET_OPTIONS_VERSION = UInt32(2)

# Status codes.
const DAH5_OK = Int32(0)
const DAH5_ERR_INVALID_ARGUMENT = Int32(-1)
const DAH5_ERR_NULL_ARGUMENT = Int32(-2)
const DAH5_ERR_INVALID_HANDLE = Int32(-3)
const DAH5_ERR_OUT_OF_BOUNDS = Int32(-4)
const DAH5_ERR_TYPE_MISMATCH = Int32(-5)
const DAH5_ERR_NOT_FOUND = Int32(-6)
const DAH5_ERR_ALREADY_EXISTS = Int32(-7)
const DAH5_ERR_READ_ONLY = Int32(-8)
const DAH5_ERR_NOT_HDF5 = Int32(-9)
const DAH5_ERR_TRUNCATED = Int32(-10)
const DAH5_ERR_NO_SPACE = Int32(-11)
const DAH5_ERR_PERMISSION = Int32(-12)
const DAH5_ERR_COLLECTIVE_MISMATCH = Int32(-13)
const DAH5_ERR_HDF5 = Int32(-14)
const DAH5_ERR_MPI = Int32(-15)
const DAH5_ERR_IO = Int32(-16)
const DAH5_ERR_MPI_NOT_INITIALIZED = Int32(-17)
const DAH5_ERR_ABI_MISMATCH = Int32(-18)
const DAH5_ERR_PANIC = Int32(-19)
const DAH5_ERR_COLLECTIVE_TIMEOUT = Int32(-20)
const DAH5_ERR_UNSUPPORTED = Int32(-21)
const DAH5_ERR_FILE_CHANGED = Int32(-22)
const DAH5_ERR_IN_USE = Int32(-23)
