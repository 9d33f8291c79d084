#!/usr/bin/env node
// Package bin: runs the TypeScript CLI through tsx (Node >= 22.12).
import { register } from "tsx/esm/api";

register();
await import("../src/main.ts");
