/** The part of s3rver's API the S3 storage test uses (s3rver ships no types). */
declare module "s3rver" {
  interface S3rverOptions {
    address?: string;
    port?: number;
    silent?: boolean;
    directory: string;
    configureBuckets?: Array<{ name: string; configs: unknown[] }>;
  }
  export default class S3rver {
    constructor(options: S3rverOptions);
    run(): Promise<import("node:net").AddressInfo>;
    close(): Promise<void>;
  }
}
