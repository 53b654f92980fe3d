// The files under APNs/ (moving to a test target of their own) use TestSupport's helpers without importing
// it; this import makes them visible to every file of the target until they have their own `import`.
// Every other file of this target imports TestSupport itself.
@_exported import TestSupport
