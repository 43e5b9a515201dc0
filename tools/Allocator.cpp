//===- Allocator.cpp - jemalloc's configuration for nnir's programs -------===//
//
/// \file
/// Compiled into every nnir program linked with jemalloc (cmake/
/// Allocator.cmake). jemalloc reads `malloc_conf` from the executable when
/// it initialises, before main() and before any static constructor can
/// allocate.
///
/// thp:always: the arenas are backed by transparent huge pages. Debian's
/// default THP mode is "madvise", which gives huge pages only to memory that
/// asks for them; without this, building a module of a million nodes faults
/// in a 4 KiB page for every few nodes. metadata_thp:auto lets jemalloc put
/// its own tables on huge pages once they are large.
///
/// The environment's MALLOC_CONF is applied after this, so a user can still
/// override any of it (MALLOC_CONF=thp:default).
//
//===----------------------------------------------------------------------===//

extern "C" {
// NOLINTNEXTLINE(readability-identifier-naming): jemalloc's name.
const char *malloc_conf = "thp:always,metadata_thp:auto";
}
