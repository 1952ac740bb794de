// `import StatefulControls` is the one import an app writes: the engine comes with it.
@_exported import StatefulEngine
