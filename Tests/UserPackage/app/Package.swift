// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "app",
    dependencies: [
        .package(url: "https://example.com/your-clone-of/bindery.git", from: "0.1.0"),
    ],
    targets: [
        .executableTarget(name: "appdaemon", dependencies: [
            .product(name: "BinderyServer", package: "bindery"),
        ]),
    ]
)
