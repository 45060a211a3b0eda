// Copy buttons: <button data-copy="ELEMENT-ID"> copies that element's text. The page works without this script.
document.querySelectorAll("button[data-copy]").forEach(function (button) {
  button.hidden = false;
  button.addEventListener("click", function () {
    var source = document.getElementById(button.getAttribute("data-copy"));
    if (!source || !navigator.clipboard) return;
    navigator.clipboard.writeText(source.textContent.trim()).then(function () {
      var label = button.textContent;
      button.textContent = "Copied";
      setTimeout(function () { button.textContent = label; }, 1500);
    });
  });
});
