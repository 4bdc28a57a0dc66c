// Compiles the tests' precompiled header once; the tests reuse it.
