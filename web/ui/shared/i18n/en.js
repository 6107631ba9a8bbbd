// Every string the pages show, in English, in files by area. Other languages are
// files of the same keys.
import console from "./en/console.js";
import setup from "./en/setup.js";
import booking from "./en/booking.js";
import resources from "./en/resources.js";
import groups from "./en/groups.js";
import waivers from "./en/waivers.js";

export default { ...console, ...setup, ...booking, ...resources, ...groups, ...waivers };
