import AppViewModels
import BinderyServer

// A daemon of app-shaped view models (Examples/AppViewModels), built in Swift 5 language mode.
BinderyDaemon.main(name: "appd", version: "1.0.0") { registry in
    ExampleViewModels.register(into: &registry)
}
