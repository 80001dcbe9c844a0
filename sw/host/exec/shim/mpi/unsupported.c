/* Loud stubs: MPI functions programs commonly call that the platform's MPI
 * library does not implement. Each ends the run with an error naming the
 * node, the program and the function (rather than the dynamic linker's
 * "undefined symbol", or worse, a silent wrong result). No prototypes (this
 * file does not include mpi.h): the arguments are never looked at. */
#include "../shim.h"

#define STUB(name)                                        \
  int MPI_##name(void) { m2s_unsupported("MPI_" #name); } \
  int PMPI_##name(void) __attribute__((alias("MPI_" #name)));

/* A list of entries, laid out by hand (clang-format folds it into a staircase). */
/* clang-format off */
STUB(Comm_dup) STUB(Comm_split) STUB(Comm_free) STUB(Comm_create) STUB(Comm_group) STUB(Comm_compare)
STUB(Comm_get_attr) STUB(Comm_set_name) STUB(Comm_get_name) STUB(Comm_remote_size)
STUB(Comm_test_inter) STUB(Intercomm_create) STUB(Group_incl) STUB(Group_excl) STUB(Group_free)
STUB(Group_rank) STUB(Group_size) STUB(Group_translate_ranks) STUB(Errhandler_set) STUB(Error_class)
STUB(Query_thread) STUB(Is_thread_main) STUB(Get_library_version) STUB(Pcontrol) STUB(Attr_get)
STUB(Info_create) STUB(Info_set) STUB(Info_free)
STUB(Bsend) STUB(Rsend) STUB(Ibsend) STUB(Irsend) STUB(Issend) STUB(Buffer_attach) STUB(Buffer_detach)
STUB(Send_init) STUB(Recv_init) STUB(Ssend_init) STUB(Start) STUB(Startall) STUB(Request_free) STUB(Cancel)
STUB(Test_cancelled) STUB(Waitany) STUB(Waitsome) STUB(Testall) STUB(Testany) STUB(Testsome)
STUB(Sendrecv_replace) STUB(Get_elements) STUB(Mprobe) STUB(Improbe) STUB(Mrecv)
STUB(Scatter) STUB(Scatterv) STUB(Gatherv) STUB(Allgather) STUB(Allgatherv) STUB(Alltoallv) STUB(Alltoallw)
STUB(Reduce_scatter) STUB(Reduce_scatter_block) STUB(Scan) STUB(Exscan) STUB(Reduce_local)
STUB(Ibarrier) STUB(Ibcast) STUB(Ireduce) STUB(Iallreduce) STUB(Igather) STUB(Ialltoall) STUB(Iallgather)
STUB(Op_create) STUB(Op_free) STUB(Type_contiguous) STUB(Type_vector) STUB(Type_hvector) STUB(Type_indexed)
STUB(Type_create_struct) STUB(Type_create_subarray) STUB(Type_create_resized) STUB(Type_commit) STUB(Type_free)
STUB(Type_get_extent) STUB(Type_get_true_extent) STUB(Type_extent) STUB(Type_struct)
STUB(Pack) STUB(Unpack) STUB(Pack_size) STUB(Address) STUB(Get_address)
STUB(Cart_create) STUB(Cart_coords) STUB(Cart_rank) STUB(Cart_shift) STUB(Cart_get) STUB(Dims_create)
STUB(Topo_test) STUB(Win_create) STUB(Win_free) STUB(Win_fence) STUB(Put) STUB(Get) STUB(Accumulate)
STUB(File_open) STUB(File_close) STUB(File_read) STUB(File_write)
    /* clang-format on */
