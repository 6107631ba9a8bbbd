// The API's paths as the pages call them: the tenant header (x-tenant-id) is set by the
// client for every request (shared/api.js), so a call need not name it.
import type { paths } from "kairos-api";

type Methods = "get" | "put" | "post" | "delete" | "patch" | "options" | "head" | "trace";

type TenantSet<O> = O extends { parameters: infer P }
  ? Omit<O, "parameters"> & {
      parameters: Omit<P, "header"> & {
        header?: P extends { header?: infer H } ? Partial<NonNullable<H>> : never;
      };
    }
  : O;

export type ConsolePaths = {
  [Path in keyof paths]: {
    [M in keyof paths[Path]]: M extends Methods ? TenantSet<paths[Path][M]> : paths[Path][M];
  };
};
