/**
 * The small script of the TikTok review form (served at /review/review.js, `script-src 'self'`): it only
 * enables and disables controls as the user chooses (networks.md 2.1 "Required UX"): Publish stays disabled
 * until a privacy level is chosen, consent is given and, with disclosure on, "Your brand" and/or "Branded
 * content" is picked; "Only me" is disabled for branded content with the message; the label notice and the
 * declaration follow the choice. Without it the server refuses the same things (src/providers/social/tiktok/
 * options.ts `validateReviewChoice`).
 * On the delivery status page it follows the delivery: every 3 seconds while `#delivery-live` is active it
 * fetches the page and replaces that region's content (an `aria-live` region), until the delivery is
 * published, failed or waiting for review.
 */
export const REVIEW_SCRIPT = `"use strict";
(function () {
  var f = document.getElementById("review-form");
  if (!f) return;
  var kind = f.getAttribute("data-kind") === "photo" ? "photo" : "video";
  var $ = function (id) { return document.getElementById(id); };
  function update() {
    var disclose = $("disclose").checked;
    var yours = $("your_brand");
    var branded = $("branded_content");
    yours.disabled = !disclose;
    branded.disabled = !disclose;
    if (!disclose) { yours.checked = false; branded.checked = false; }
    $("disclosure-options").hidden = !disclose;
    var isBranded = disclose && branded.checked;
    var isOwn = disclose && yours.checked;
    var onlyMe = $("privacy-SELF_ONLY");
    if (onlyMe) {
      onlyMe.disabled = isBranded;
      if (isBranded && onlyMe.checked) onlyMe.checked = false;
    }
    $("branded-private-note").hidden = !isBranded;
    var notice = "";
    if (isBranded) notice = "Your " + kind + " will be labeled as 'Paid partnership'.";
    else if (isOwn) notice = "Your " + kind + " will be labeled as 'Promotional content'.";
    $("label-notice").textContent = notice;
    $("declaration-plain").hidden = isBranded;
    $("declaration-branded").hidden = !isBranded;
    var privacy = f.querySelector("input[name=privacy_level]:checked");
    var publish = $("publish");
    var why = !privacy ? "Choose who can view this post."
      : disclose && !isBranded && !isOwn ? "Choose Your brand and/or Branded content."
      : !$("consent").checked ? "Confirm that you agree to publish."
      : "";
    publish.disabled = why !== "";
    publish.title = why;
  }
  f.addEventListener("change", update);
  f.addEventListener("input", update);
  update();
})();
(function () {
  var live = document.getElementById("delivery-live");
  if (!live) return;
  function poll() {
    if (live.getAttribute("data-active") !== "true") return;
    setTimeout(function () {
      fetch(location.href, { credentials: "same-origin", headers: { accept: "text/html" } })
        .then(function (r) { return r.ok ? r.text() : Promise.reject(new Error(String(r.status))); })
        .then(function (text) {
          var next = new DOMParser().parseFromString(text, "text/html").getElementById("delivery-live");
          if (!next) return;
          live.innerHTML = next.innerHTML;
          live.setAttribute("data-active", next.getAttribute("data-active") || "false");
          poll();
        })
        .catch(poll);
    }, 3000);
  }
  poll();
})();
`;
