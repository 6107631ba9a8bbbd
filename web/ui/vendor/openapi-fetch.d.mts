export * from "openapi-fetch";
export { default } from "openapi-fetch";
