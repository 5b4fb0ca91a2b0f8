"""The only code that talks to the JVM: session helpers, the query listener and plan reading."""
