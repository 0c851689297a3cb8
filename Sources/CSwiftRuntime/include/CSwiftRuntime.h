#ifndef BINDERY_C_SWIFT_RUNTIME_H
#define BINDERY_C_SWIFT_RUNTIME_H

#include <stddef.h>

/// The type a mangled name in a type's reflection records stands for, as the Swift runtime resolves
/// it (symbolic references included): what `Mirror` itself uses. NULL when it cannot be resolved.
const void *bindery_type_by_mangled_name(const char *name, size_t length, const void *context);

#endif
