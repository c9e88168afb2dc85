"""The built-in simulated household world: a declarative domain, a simulator and a corpus writer."""
