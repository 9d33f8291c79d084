/**
 * Writes test/contracts/*.json: the providers' published API descriptions, trimmed to the operations our
 * adapters call (or convert to OpenAPI 3 where the provider publishes another format), each stating its
 * repository, path, commit and licence in `info.x-source`; then the TypeScript types of the OpenAPI ones
 * (openapi-typescript) to src/providers/contracts/. The fakes (test/fakes/contract.ts) check every request
 * and answer against these files (docs/testing.md "Provider contracts").
 *
 * Usage: node scripts/contracts.ts SOURCES_DIR [NAME...]
 *   NAMEs (`openai`, `pinterest`, `x`, `youtube`, `graph`) limit the run to those descriptions (all by default).
 *   SOURCES_DIR holds a git copy of each repository below, as `{owner}+{name}/repo` (a bare git directory)
 *   or `{owner}/{name}` (a clone); the files are read at the pinned commits, so a run is repeatable. To
 *   follow a newer description, change its commit here and run again.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import openapiTS, { astToString } from "openapi-typescript";
import YAML from "yaml";
import { discoveryToOpenApi } from "./contracts/discovery.ts";
import { metaToOpenApi, type NodeKeep, type NodeSpecs } from "./contracts/meta.ts";
import { type Keep, trimOpenApi } from "./contracts/openapi.ts";

interface Source {
  repository: string;
  path: string;
  commit: string;
  licence: string;
}

const OPENAI: Source = {
  repository: "openai/openai-openapi",
  path: "openapi.yaml",
  commit: "f85dbe223d40e1a31cba812ab2d755c7e98a92a3",
  licence: "MIT (Copyright (c) OpenAI)",
};
const PINTEREST: Source = {
  repository: "pinterest/api-description",
  path: "v5/openapi.yaml",
  commit: "c05b18971472342ebdf4bafc15fea8a91c78bf79",
  licence: "MIT (Copyright 2021 Pinterest, Inc.)",
};
const X_LATEST: Source = {
  repository: "xdevplatform/xdk",
  path: "latest-openapi.json",
  commit: "84c26540df30c0b798e50e34151c56d5d262ba1c",
  licence: "MIT (Copyright (c) 2024 XDK Project)",
};
const X_SPECS: Source = { ...X_LATEST, path: "specs/openapi.json" };
const YOUTUBE: Source = {
  repository: "googleapis/discovery-artifact-manager",
  path: "discoveries/youtube.v3.json",
  commit: "0ca43a0ba91ff08b029b5a49262b0b07e7685c27",
  licence: "Apache-2.0 (Copyright Google LLC)",
};
const META: Source = {
  repository: "facebook/facebook-business-sdk-codegen",
  path: "api_specs/specs",
  commit: "ad2b0b6fdfbe4d73ed0754cb4562ef20b72b40d4",
  licence:
    "Facebook Platform licence of the repository (non-exclusive, royalty-free; use with Facebook's web services and APIs, subject to the Facebook Platform Policy; Copyright (c) Meta Platforms, Inc. and affiliates)",
};

/** What the OpenAI adapters call: images (generations, edits), chat completions, responses, models, videos. */
const OPENAI_KEEP: Keep = {
  "/images/generations": ["post"],
  "/images/edits": ["post"],
  "/chat/completions": ["post"],
  "/responses": ["post"],
  "/models": ["get"],
  "/videos": ["post"],
  "/videos/{video_id}": ["get"],
  "/videos/{video_id}/content": ["get"],
};

/** Pins (create, read, delete, analytics), boards, the user account, video media, the token endpoint. */
const PINTEREST_KEEP: Keep = {
  "/oauth/token": ["post"],
  "/user_account": ["get"],
  "/boards": ["get"],
  "/boards/{board_id}/pins": ["get"],
  "/pins": ["post"],
  "/pins/{pin_id}": ["get", "delete"],
  "/pins/{pin_id}/analytics": ["get"],
  "/media": ["post"],
  "/media/{media_id}": ["get"],
};

/** Posts (create with media or a reply, read, delete, a user's timeline), users/me, media upload and metadata. */
const X_KEEP: Keep = {
  "/2/tweets": ["get", "post"],
  "/2/tweets/{id}": ["delete"],
  "/2/users/me": ["get"],
  "/2/users/{id}/tweets": ["get"],
  "/2/media/upload": ["get", "post"],
  "/2/media/upload/initialize": ["post"],
  "/2/media/upload/{id}/append": ["post"],
  "/2/media/upload/{id}/finalize": ["post"],
  "/2/media/metadata": ["post"],
};

const YOUTUBE_METHODS = [
  "youtube.channels.list",
  "youtube.videos.list",
  "youtube.videos.insert",
  "youtube.videos.delete",
  "youtube.playlistItems.list",
  "youtube.commentThreads.insert",
];

/** Facebook Pages: the user and their pages, page feed, photos, videos, posts, insights, comments, deletes. */
const FACEBOOK_NODES: NodeKeep[] = [
  { node: "User", self: ["GET"], edges: ["GET accounts", "GET permissions"] },
  {
    node: "Page",
    self: ["GET"],
    added: [
      {
        name: "tasks",
        type: "list<string>",
        source: "https://developers.facebook.com/docs/graph-api/reference/user/accounts/",
      },
    ],
    edges: ["GET feed", "POST feed", "GET published_posts", "POST photos", "POST videos", "GET insights"],
  },
  { node: "PagePost", self: ["GET", "DELETE"], edges: ["GET insights", "POST comments", "GET comments"] },
  { node: "Photo", self: ["GET", "DELETE"], edges: ["POST comments"] },
  { node: "AdVideo", self: ["GET", "DELETE"], edges: ["POST comments"] },
];

/** Instagram API with Instagram Login: the user, containers and publishing, media, insights, comments. */
const INSTAGRAM_NODES: NodeKeep[] = [
  {
    node: "IGUserForIGOnlyAPI",
    self: ["GET"],
    edges: ["GET media", "POST media", "POST mediapublish", "GET content_publishing_limit", "GET insights"],
    // The codegen names the media edge's items `Media`, a type it has no file for: the IG-only media node.
    lists: { media: "IGMediaForIGOnlyAPI" },
  },
  {
    node: "IGMediaForIGOnlyAPI",
    self: ["GET"],
    edges: ["GET insights", "POST comments", "GET comments", "GET children"],
    // The codegen types the comments edge as Facebook's `Comment`; Instagram lists IG comments (`id`, `text`,
    // `timestamp`, `username`): https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-media/comments
    lists: { comments: "IGComment" },
  },
  { node: "ShadowIGMediaBuilder", self: ["GET"], edges: [] },
];

/** The git directory of `repository` under `dir`. */
function gitDir(dir: string, repository: string): string {
  const [owner, name] = repository.split("/");
  for (const candidate of [path.join(dir, `${owner}+${name}`, "repo"), path.join(dir, owner!, name!, ".git")])
    if (existsSync(candidate)) return candidate;
  throw new Error(`no git copy of ${repository} under ${dir}`);
}

/** The text of `file` at `commit` of `repository`. */
function show(dir: string, s: Source, file = s.path): string {
  return execFileSync("git", ["--git-dir", gitDir(dir, s.repository), "show", `${s.commit}:${file}`], {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
}

const sourceOf = (s: Source) => ({ ...s, trimmed_by: "scripts/contracts.ts" });

function write(name: string, doc: unknown): string {
  const file = path.join("test/contracts", `${name}.json`);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(doc, null, 1)}\n`);
  return file;
}

/** The Meta specs: every node file of the directory at the commit, each parsed when first asked for. */
function metaSpecs(dir: string): { specs: NodeSpecs; enums: any[] } {
  const git = gitDir(dir, META.repository);
  const listing = execFileSync(
    "git",
    ["--git-dir", git, "ls-tree", "--name-only", `${META.commit}:${META.path}`],
    {
      encoding: "utf8",
    },
  );
  const cache = new Map<string, any>();
  for (const n of listing.split("\n"))
    if (/^[A-Z].*\.json$/.test(n)) cache.set(n.replace(/\.json$/, ""), undefined);
  const specs: NodeSpecs = {
    has: (k) => cache.has(k),
    get(k) {
      if (!cache.has(k)) return undefined;
      if (cache.get(k) === undefined) cache.set(k, JSON.parse(show(dir, META, `${META.path}/${k}.json`)));
      return cache.get(k);
    },
  };
  return { specs, enums: JSON.parse(show(dir, META, `${META.path}/enum_types.json`)) };
}

/** A copy of `node` without `discriminator` objects (see `types`). */
function withoutDiscriminators(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutDiscriminators);
  if (!node || typeof node !== "object") return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([k]) => k !== "discriminator")
      .map(([k, v]) => [k, withoutDiscriminators(v)]),
  );
}

/**
 * The TypeScript types of `doc` (openapi-typescript): optional properties stay optional even with a default,
 * and discriminators are left out (openapi-typescript types a discriminator without a mapping as the schema's
 * name, e.g. `role: "ChatCompletionRequestSystemMessage"`; each branch's own enum types it instead).
 */
async function types(name: string, doc: unknown): Promise<void> {
  const ast = await openapiTS(withoutDiscriminators(doc) as any, {
    alphabetize: true,
    defaultNonNullable: false,
  });
  const out = path.join("src/providers/contracts", `${name}.ts`);
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(
    out,
    `// Generated by scripts/contracts.ts (openapi-typescript) from test/contracts/${name}.json; never edit by hand.\n\n${astToString(ast)}`,
  );
}

async function main(): Promise<void> {
  const [dir, ...names] = process.argv.slice(2);
  if (!dir) throw new Error("usage: node scripts/contracts.ts SOURCES_DIR [NAME...]");
  const wanted = (name: string) => names.length === 0 || names.includes(name);
  const out: string[] = [];
  if (wanted("openai")) {
    const openai = trimOpenApi(YAML.parse(show(dir, OPENAI)), OPENAI_KEEP, sourceOf(OPENAI));
    out.push(write("openai", openai));
    await types("openai", openai);
  }
  if (wanted("pinterest")) {
    const pinterest = trimOpenApi(YAML.parse(show(dir, PINTEREST)), PINTEREST_KEEP, sourceOf(PINTEREST));
    out.push(write("pinterest", pinterest));
    await types("pinterest", pinterest);
  }
  if (wanted("x")) {
    const xLatest = trimOpenApi(JSON.parse(show(dir, X_LATEST)), X_KEEP, sourceOf(X_LATEST));
    out.push(write("x-latest", xLatest));
    await types("x-latest", xLatest);
    const xSpecs = trimOpenApi(JSON.parse(show(dir, X_SPECS)), X_KEEP, sourceOf(X_SPECS));
    out.push(write("x-2026-07", xSpecs));
    await types("x-2026-07", xSpecs);
  }
  if (wanted("youtube"))
    out.push(
      write(
        "youtube",
        discoveryToOpenApi(JSON.parse(show(dir, YOUTUBE)), YOUTUBE_METHODS, sourceOf(YOUTUBE)),
      ),
    );
  if (wanted("graph")) {
    const meta = metaSpecs(dir);
    out.push(
      write(
        "graph-facebook",
        metaToOpenApi(
          meta.specs,
          meta.enums,
          FACEBOOK_NODES,
          "https://graph.facebook.com/{version}",
          sourceOf(META),
        ),
      ),
      write(
        "graph-instagram",
        metaToOpenApi(
          meta.specs,
          meta.enums,
          INSTAGRAM_NODES,
          "https://graph.instagram.com/{version}",
          sourceOf(META),
        ),
      ),
    );
  }
  process.stdout.write(`${out.join("\n")}\n`);
}

await main();
