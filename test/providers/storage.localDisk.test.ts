import { mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { localDiskStorage } from "../../src/providers/storage.ts";
import { storageContract } from "./storage.contract.ts";

const dir = await mkdtemp(path.join(os.tmpdir(), "smcp-disk-"));
storageContract("local disk", async () => localDiskStorage(dir));
