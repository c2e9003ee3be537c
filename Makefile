# The two commands of the README. Everything else is a building block of these.
.PHONY: demo test lint unit molecule bootstrap

bootstrap:
	scripts/bootstrap

demo: bootstrap
	scripts/demo

test: bootstrap
	scripts/test

lint: bootstrap
	scripts/test lint

unit: bootstrap
	scripts/test unit
