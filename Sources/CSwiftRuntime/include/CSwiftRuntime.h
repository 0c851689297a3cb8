#ifndef BINDERY_C_SWIFT_RUNTIME_H
#define BINDERY_C_SWIFT_RUNTIME_H

#include <stddef.h>

/// The type a mangled name in a type's reflection records stands for, as the Swift runtime resolves
/// it (symbolic references included): what `Mirror` itself uses. A generic type's records name its
/// parameters: `generic_arguments` are the arguments of the instance (NULL for a type that is not
/// generic). NULL when it cannot be resolved.
const void *bindery_type_by_mangled_name(const char *name, size_t length, const void *context,
                                         const void *const *generic_arguments);

/// Sends every job the Swift runtime would give its global (concurrent) executor to the main
/// executor instead (on != 0), or stops doing so: the runtime's documented hook, which TCA's tests
/// use too. With it, the tasks a view model starts by itself run on the main thread, one after
/// another, only when the main thread is free: a deterministic daemon and a test harness make the
/// order of their steps, and a virtual clock sees every sleep they begin.
void bindery_run_global_jobs_on_main(int on);

/// Whether Observation's thread-local access list can be reached; then get and set it: what
/// `withObservationTracking` does around its closure, so a read's accesses can be recorded without
/// installing a registration. Its entry points are hidden in libswiftObservation.so: reached
/// through a static link of the runtime (binderyd), or else found in the loaded library's symbol
/// table (a daemon built by a plain `swift build`).
int bindery_observation_access_list_linked(void);
/// How they were reached: 0 not at all, 1 linked statically, 2 from the shared library's .symtab.
int bindery_observation_access_list_source(void);
void *bindery_observation_access_list_get(void);
void bindery_observation_access_list_set(void *value);

/// Keeps the index to the records of these protocols (descriptors); called before its first use.
/// Questions about other protocols are then not answered (see bindery_conformance_protocol_is_indexed).
void bindery_conformance_index_protocols(const void *const *protocols, size_t count);
/// Whether the index holds the records of this protocol (every protocol's, when none were named).
int bindery_conformance_protocol_is_indexed(const void *protocol);
/// How many (type, protocol) conformance records the index holds (0: none could be read).
size_t bindery_conformance_record_count(void);
/// Whether some loaded image holds a conformance record of the nominal type `type_descriptor` to
/// the protocol `protocol_descriptor`: a hash probe, where a failed cast searches every record.
int bindery_has_conformance_record(const void *type_descriptor, const void *protocol_descriptor);
/// The witness table of the type `type_metadata` (of that descriptor) for that protocol, from its
/// conformance record by the runtime's swift_getWitnessTable, when the record is found and has no
/// conditional requirements; else NULL: then only the runtime's cast can tell.
const void *bindery_conformance_witness_table(const void *type_metadata, const void *type_descriptor,
                                              const void *protocol_descriptor);


#endif
