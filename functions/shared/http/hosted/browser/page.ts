/** The hosted page's script (bundled into hosted/scripts.generated.ts by `npm run hosted-scripts`). */
import { setUpChat } from "./chat.ts";
import { setUpSearch } from "./search.ts";
import { setUpTabs } from "./tabs.ts";

setUpTabs();
setUpSearch();
setUpChat();
