#include "CSwiftRuntime.h"

// Exported by the Swift runtime with the Swift calling convention; Swift code may not name the
// runtime's own symbols, so this shim calls it.
extern const void *swift_getTypeByMangledNameInContext(const char *typeNameStart, size_t typeNameLength,
                                                       const void *context, const void *const *genericArgs)
    __attribute__((swiftcall));

const void *bindery_type_by_mangled_name(const char *name, size_t length, const void *context) {
    return swift_getTypeByMangledNameInContext(name, length, context, NULL);
}
