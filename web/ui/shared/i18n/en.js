// Every string the pages show, in English, in three files by area. Other languages are
// files of the same keys.
import console from "./en/console.js";
import setup from "./en/setup.js";
import booking from "./en/booking.js";

export default { ...console, ...setup, ...booking };
