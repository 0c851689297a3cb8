#include "CSwiftRuntime.h"

// Exported by the Swift runtime with the Swift calling convention; Swift code may not name the
// runtime's own symbols, so this shim calls it.
extern const void *swift_getTypeByMangledNameInContext(const char *typeNameStart, size_t typeNameLength,
                                                       const void *context, const void *const *genericArgs)
    __attribute__((swiftcall));

const void *bindery_type_by_mangled_name(const char *name, size_t length, const void *context,
                                         const void *const *generic_arguments) {
    return swift_getTypeByMangledNameInContext(name, length, context, generic_arguments);
}

typedef void (*bindery_enqueue_original)(void *job) __attribute__((swiftcall));
typedef void (*bindery_enqueue_hook)(void *job, bindery_enqueue_original original) __attribute__((swiftcall));
extern bindery_enqueue_hook swift_task_enqueueGlobal_hook;
extern void swift_task_enqueueMainExecutor(void *job) __attribute__((swiftcall));

__attribute__((swiftcall)) static void bindery_enqueue_on_main(void *job, bindery_enqueue_original original) {
    (void)original;
    swift_task_enqueueMainExecutor(job);
}

void bindery_run_global_jobs_on_main(int on) {
    swift_task_enqueueGlobal_hook = on ? bindery_enqueue_on_main : 0;
}
