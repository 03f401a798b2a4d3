// The SDK as strands.browser.test.ts imports it: untyped (the test types it as strands-world.ts's Strands),
// so the tests typecheck the same before test/strands' packages are installed (a clean clone's `tsc`
// runs before any test installs them) as after. An ambient module wins over the installed one.
declare module "@strands-agents/sdk";
