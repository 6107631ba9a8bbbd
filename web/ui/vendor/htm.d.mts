import htm from "htm";
export default htm;
