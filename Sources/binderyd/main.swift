import BinderyServer
import SeedViewModels

/// binderyd: the seed view models, served over JSON-RPC on stdio.
var registry = ViewModelRegistry()
registry.registerSeedViewModels()
BinderyDaemon.run(registry: registry, name: "binderyd", version: BinderyDaemon.version)
